/**
 * The `listSessions` tool: stored threads, newest first, with whether each is loaded and when
 * an idle loaded one leaves memory. Long lists are paginated by an opaque cursor naming the
 * last thread shown (`ls_…`: its creation time and id), which survives deletions between pages.
 */

import { z } from "zod";
import type { ThreadSummary } from "../../store/index.js";
import { isoTimestamp } from "../../util/iso-time.js";
import { clampPageSize, sessionTtlMs } from "./pagination.js";
import { fail, ok, type ServerToolResult, type Structured } from "./results.js";
import type { ServerToolContext } from "./server-tool.js";
import { defineSessionTool, errorField, pageSizeArg, pageTokenArg } from "./session-tool.js";
import { fileSize } from "./thread-state.js";

/** listSessions shows this much of each first prompt. */
const PROMPT_PREVIEW = 200;
const LIST_TOKEN = /^ls_([A-Za-z0-9_-]+)$/;
/** What a list token names: `<created ISO time> <thread id>`, the list's order, newest first. */
const LIST_KEY = /^\d{4}-\d{2}-\d{2}T\S+ [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const session = z.object({
  id: z.string(),
  turns: z.number(),
  bytes: z.number(),
  createdAt: z.string(),
  lastUsedAt: z.string(),
  expiresAt: z.string().nullable().describe("When the idle thread leaves memory; null when not loaded."),
  loaded: z.boolean(),
  cwd: z.string(),
  model: z.string(),
  firstPrompt: z.string().nullable(),
});

export const listSessionsTool = defineSessionTool({
  name: "listSessions",
  description:
    "List stored threads, newest first: id, turns, bytes, createdAt, lastUsedAt, expiresAt, cwd, first prompt. Long lists are paginated (pageSize characters per page; pass nextPageToken as pageToken).",
  input: z.object({ pageSize: pageSizeArg, pageToken: pageTokenArg }),
  output: z.object({ sessions: z.array(session), nextPageToken: z.string().optional(), error: errorField }),
  errorFields: () => ({ sessions: [] }),
  handle: listSessions,
});

async function listSessions(
  args: { pageSize?: number | undefined; pageToken?: string | undefined },
  context: ServerToolContext,
): Promise<ServerToolResult> {
  const { threads, tasks } = context.runtime;
  let after: string | null = null;
  if (args.pageToken !== undefined) {
    after = decodeListToken(args.pageToken);
    if (after === null) {
      return fail(
        `Invalid pageToken '${args.pageToken}' for listSessions: pass the nextPageToken of a previous listSessions result unchanged.`,
        { sessions: [] },
      );
    }
  }
  const size = clampPageSize(args.pageSize);
  const ttl = sessionTtlMs();
  const all = await threads.list();
  // Newest first (creation time, then id): a cursor survives deletions.
  const rest = after === null ? all : all.filter((summary) => listKey(summary) < (after as string));
  const lines: string[] = [];
  const sessions: Structured[] = [];
  let used = 0;
  let nextPageToken: string | undefined;
  for (const summary of rest) {
    const live = threads.liveState(summary.id);
    const running =
      live !== undefined &&
      (live.lastTurn.state === "running" || tasks.status(summary.id)?.state === "running");
    const lastUsed = Date.parse(summary.updated);
    const item = {
      id: summary.id,
      turns: summary.turns,
      bytes: summary.path ? await fileSize(summary.path) : 0,
      createdAt: summary.created,
      lastUsedAt: summary.updated,
      // A running thread's idle clock restarts when its turn ends.
      expiresAt: live ? isoTimestamp(Math.max(lastUsed, running ? Date.now() : 0) + ttl) : null,
      loaded: live !== undefined,
      cwd: summary.cwd,
      model: summary.model,
      firstPrompt: preview(summary.firstPrompt),
    };
    const line = JSON.stringify(item);
    if (sessions.length > 0 && used + line.length + 1 > size) {
      const last = rest[sessions.length - 1];
      nextPageToken = encodeListToken(last ? listKey(last) : "");
      break;
    }
    used += line.length + 1;
    lines.push(line);
    sessions.push(item);
  }
  const head =
    sessions.length === 0
      ? "No stored sessions."
      : `${sessions.length} session(s), newest first${nextPageToken ? `; more with pageToken ${nextPageToken}` : ""}:`;
  return ok([head, ...lines].join("\n"), { sessions, ...(nextPageToken ? { nextPageToken } : {}) });
}

function encodeListToken(name: string): string {
  return `ls_${Buffer.from(name).toString("base64url")}`;
}

function decodeListToken(token: string): string | null {
  const match = LIST_TOKEN.exec(token);
  if (!match?.[1]) return null;
  const name = Buffer.from(match[1], "base64url").toString();
  return LIST_KEY.test(name) ? name : null;
}

function listKey(summary: ThreadSummary): string {
  return `${summary.created} ${summary.id}`;
}

function preview(prompt: string | null): string | null {
  if (prompt === null || prompt.length <= PROMPT_PREVIEW) return prompt;
  return `${prompt.slice(0, PROMPT_PREVIEW)}…`;
}
