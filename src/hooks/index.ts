/**
 * Hooks: user commands (and library callbacks) that Codex 0.169's events start, whose answers
 * can add context, block a tool call, decide an escalation or keep a turn going.
 * Flow: loadHooks (sources.ts: files of each layer, trust) → HookEngine.run(event, payload)
 * (engine.ts: match, run concurrently, fold answers) → the session and the orchestrator act on
 * the HookOutcome.
 */

import { HookEngine } from "./engine.js";
import type { HookCallbacks } from "./events.js";
import type { CallbackHook, Hook } from "./handler.js";
import { type HookSourceOptions, loadHookSources } from "./sources.js";

export { HookEngine } from "./engine.js";
export type {
  HookCallback,
  HookCallbacks,
  HookEventName,
  HookInput,
  HookInputs,
  PermissionMode,
  SessionStartSource,
  ThreadStartSource,
} from "./events.js";
export { HOOK_EVENTS } from "./events.js";
export type { CommandHook } from "./handler.js";
export type { HookOutcome, HookRunContext } from "./outcome.js";
export { NO_OUTCOME } from "./outcome.js";
export { loadHookSources } from "./sources.js";

/** The engine for a thread: the configured hooks of its layers, plus the program's callbacks. */
export async function loadHooks(
  options: HookSourceOptions & { callbacks?: HookCallbacks | undefined },
): Promise<HookEngine> {
  const { hooks, warnings } = await loadHookSources(options);
  const all: Hook[] = [...hooks, ...callbackHooks(options.callbacks, hooks.length)];
  return new HookEngine(all, warnings, { ...options.env, CODEX_HOME: options.home });
}

/** The program's callbacks as hooks, numbered after the `configured` command hooks. */
function callbackHooks(callbacks: HookCallbacks | undefined, configured: number): CallbackHook[] {
  if (!callbacks) return [];
  const listed = Object.entries(callbacks).flatMap(([event, value]) =>
    (Array.isArray(value) ? value : value ? [value] : []).map((callback) => ({ event, callback })),
  );
  return listed.map(
    ({ event, callback }, index) =>
      ({ kind: "callback", event, callback, displayOrder: configured + index }) as CallbackHook,
  );
}
