/**
 * Hook test helpers: hooks.json / [hooks] writers, a recording hook command, and the payloads
 * Codex 0.169 sent its hooks (parsed from the reference page copied into test/fixtures).
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readReference } from "../support/reference.js";

export interface HookSpec {
  matcher?: string;
  command: string;
  timeout?: number;
}

/** `{"hooks": {Event: [{matcher, hooks: [{type: "command", command, timeout}]}]}}` */
export function hooksJson(events: Record<string, HookSpec[]>): string {
  const hooks = Object.fromEntries(
    Object.entries(events).map(([event, specs]) => [
      event,
      specs.map((spec) => ({
        ...(spec.matcher !== undefined ? { matcher: spec.matcher } : {}),
        hooks: [
          { type: "command", command: spec.command, ...(spec.timeout ? { timeout: spec.timeout } : {}) },
        ],
      })),
    ]),
  );
  return JSON.stringify({ hooks }, null, 2);
}

export async function writeHooksJson(dir: string, events: Record<string, HookSpec[]>): Promise<void> {
  await writeFile(join(dir, "hooks.json"), hooksJson(events));
}

/** A command that saves its stdin as `<dir>/<event>.<unique>.json`, then runs `then` (shell). */
export function recorder(dir: string, event: string, then = ""): string {
  return `f=$(mktemp -p '${dir}' '${event}.XXXXXX.json'); cat > "$f"; pwd > "$f.cwd"; ${then}`;
}

/** The payloads recorded for `event`, in the order their files sort (unique names: any order). */
export async function recorded(dir: string, event: string): Promise<Record<string, unknown>[]> {
  const names = (await readdir(dir)).filter((name) => name.startsWith(`${event}.`) && name.endsWith(".json"));
  return Promise.all(names.map(async (name) => JSON.parse(await readFile(join(dir, name), "utf8"))));
}

/** Event name → the key set of the payload Codex 0.169 sent (reference: "Stdin payloads"). */
export function codexPayloadKeys(): Map<string, string[]> {
  const page = readReference("hooks-skills-mcp-auth.md");
  const section = page.slice(page.indexOf("### Stdin payloads"));
  const block = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const keys = new Map<string, string[]>();
  for (const line of block.split("\n")) {
    if (!line.trim()) continue;
    // The page shortens some values with "…" (still valid JSON strings).
    const payload = JSON.parse(line) as Record<string, unknown>;
    keys.set(String(payload.hook_event_name), Object.keys(payload).sort());
  }
  return keys;
}
