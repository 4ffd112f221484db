/**
 * `skills/config/write` and `skills/extraRoots/set`. A write records the skill's state as Codex
 * does, as `[[skills.config]]` entries (`path` or `name`, `enabled = false`) in the user's
 * config.toml; turning a skill back on removes its entries. Extra roots live as long as the
 * server. Both apply to skills/list and to threads opened afterwards, and tell every client
 * `skills/changed` (to list again) once the reply is sent (the caller after its reply).
 */
import { isAbsolute, resolve } from "node:path";
import { readTextOrEmpty } from "../../../util/files.js";
import { parseConfigText } from "../config-edit.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import { writeConfigEdits } from "./config.js";
import type { HandlerContext } from "./context.js";

type Entry = Record<string, unknown>;

export async function skillsConfigWrite(
  params: ParamsOf<"skills/config/write">,
  context: HandlerContext,
): Promise<ResultOf<"skills/config/write">> {
  const path = params.path ?? null;
  const name = params.name?.trim() ? params.name : null;
  if ((path === null) === (name === null))
    throw RpcError.invalidParams("skills/config/write requires exactly one of path or name");
  if (path !== null && !isAbsolute(path))
    throw RpcError.invalidParams(`skills/config/write: path must be absolute: ${path}`);
  const selector: Entry = path !== null ? { path: resolve(path) } : { name };
  const current = await currentEntries(context);
  const others = current.filter((entry) =>
    path !== null
      ? entry.path === undefined || resolve(String(entry.path)) !== selector.path
      : entry.name !== name,
  );
  const entries = params.enabled ? others : [...others, { ...selector, enabled: false }];
  await writeConfigEdits([{ keyPath: "skills.config", value: entries, mergeStrategy: "replace" }], context);
  notifyChanged(context);
  return { effectiveEnabled: params.enabled };
}

export async function skillsExtraRootsSet(
  params: ParamsOf<"skills/extraRoots/set">,
  context: HandlerContext,
): Promise<ResultOf<"skills/extraRoots/set">> {
  const relative = params.extraRoots.filter((root) => !isAbsolute(root));
  if (relative.length > 0)
    throw RpcError.invalidParams(
      `skills/extraRoots/set: roots must be absolute paths: ${relative.join(", ")}`,
    );
  context.runtime.skillExtraRoots = [...new Set(params.extraRoots.map((root) => resolve(root)))];
  // Changes under the new roots notify too.
  await context.runtime.rewatchSkills();
  notifyChanged(context);
  return {};
}

/** `[[skills.config]]` as the user's config.toml has it now (the server's -c flags left out). */
async function currentEntries(context: HandlerContext): Promise<Entry[]> {
  const file = parseConfigText(await readTextOrEmpty(context.runtime.config.configPath));
  const skills = file.skills;
  const entries =
    typeof skills === "object" && skills !== null ? (skills as Record<string, unknown>).config : undefined;
  return Array.isArray(entries)
    ? entries.filter((entry): entry is Entry => typeof entry === "object" && entry !== null)
    : [];
}

function notifyChanged(context: HandlerContext): void {
  context.after(() => context.runtime.skillsChanged());
}
