/**
 * After thread/resume and thread/fork, Codex tells the resuming client the thread's last token
 * usage (`thread/tokenUsage/updated`, to that connection only: it is history, not a new model
 * event), so a status line shows the context left before the next turn. The usage comes from
 * the stored thread (its token_count lines); the window from the config or the thread's model.
 */
import type { Config } from "../../../config/load.js";
import { findModelFamily } from "../../../model/family.js";
import type { StoredThread } from "../../../store/index.js";
import { usageOf } from "../event-mapper.js";
import { encodeNotification } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

export function sendRestoredUsage(
  context: HandlerContext,
  stored: StoredThread,
  view: { id: string; turns: readonly { id: string }[] },
  settings: { model: string },
  config: Config,
): void {
  const turnId = view.turns.at(-1)?.id;
  if (!stored.lastUsage || !turnId) return;
  const tokenUsage = {
    total: usageOf(stored.usage),
    last: usageOf(stored.lastUsage),
    modelContextWindow: config.contextWindow ?? findModelFamily(settings.model).contextWindow ?? null,
  };
  context.after(() =>
    context.session.send(
      encodeNotification("thread/tokenUsage/updated", { threadId: view.id, turnId, tokenUsage }),
    ),
  );
}
