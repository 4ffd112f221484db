/**
 * Hook events and what each one is told, with Codex 0.169's names and payload keys
 * (reference: hooks-skills-mcp-auth.md). No I/O.
 */

import { HOOK_EVENTS } from "../config/hook-events.js";

export { HOOK_EVENTS };

export type HookEventName = (typeof HOOK_EVENTS)[number];

export function isHookEventName(name: string): name is HookEventName {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}

/** The snake_case label Codex uses in `[hooks.state]` keys (`pre_tool_use`). */
export function eventKeyLabel(event: HookEventName): string {
  return event.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

/** Codex's permission modes; tscodex maps its approval policy onto two of them. */
export type PermissionMode = "default" | "acceptEdits" | "plan" | "dontAsk" | "bypassPermissions";

/** Keys every session-level payload has. */
export interface SessionFields {
  session_id: string;
  transcript_path: string | null;
  cwd: string;
}

/** Keys every turn-level payload has. */
export interface TurnFields extends SessionFields {
  turn_id: string;
  model: string;
  permission_mode: PermissionMode;
}

/** Why a thread's session starts: new, reopened from the store, or new after a `/clear`. */
export type SessionStartSource = "startup" | "resume" | "clear";
/** The sources a client may give a new thread (app-server `thread/start`'s `sessionStartSource`). */
export type ThreadStartSource = Exclude<SessionStartSource, "resume">;

/** What each event's hook gets on stdin (hook_event_name is added by the engine). */
export interface HookInputs {
  SessionStart: SessionFields & {
    model: string;
    permission_mode: PermissionMode;
    source: SessionStartSource;
  };
  UserPromptSubmit: TurnFields & { prompt: string };
  PreToolUse: TurnFields & { tool_name: string; tool_input: unknown; tool_use_id: string };
  /** `tool_input`: `{command, description?}` for `Bash`, the arguments for an MCP tool. */
  PermissionRequest: TurnFields & { tool_name: string; tool_input: Record<string, unknown> };
  PostToolUse: TurnFields & {
    tool_name: string;
    tool_input: unknown;
    tool_response: unknown;
    tool_use_id: string;
  };
  Stop: TurnFields & { stop_hook_active: boolean; last_assistant_message: string | null };
  SessionEnd: SessionFields & { reason: string };
  PreCompact: Omit<TurnFields, "permission_mode"> & { trigger: "manual" | "auto" };
  PostCompact: Omit<TurnFields, "permission_mode"> & { trigger: "manual" | "auto" };
  SubagentStart: TurnFields & { agent_id: string; agent_type: string };
  SubagentStop: TurnFields & {
    agent_id: string;
    agent_type: string;
    agent_transcript_path: string | null;
    stop_hook_active: boolean;
    last_assistant_message: string | null;
  };
}

export type HookInput<E extends HookEventName = HookEventName> = HookInputs[E] & { hook_event_name: E };

/** The value an event's `matcher` is tested against (null: the event ignores matchers). */
export function matchValueOf<E extends HookEventName>(event: E, input: HookInputs[E]): string | null {
  const fields = input as Record<string, unknown>;
  switch (event) {
    case "PreToolUse":
    case "PostToolUse":
    case "PermissionRequest":
      return String(fields.tool_name);
    case "SessionStart":
      return String(fields.source);
    case "PreCompact":
    case "PostCompact":
      return String(fields.trigger);
    case "SubagentStart":
    case "SubagentStop":
      return String(fields.agent_type);
    default:
      return null;
  }
}

/**
 * What one hook answered, already interpreted for its event. Every field is optional: a hook
 * that printed nothing and exited 0 answers `{}`.
 */
export interface HookAnswer {
  /** Text for the model, as a developer message (SessionStart, UserPromptSubmit, PostToolUse). */
  additionalContext?: string;
  /** PreToolUse deny, Stop / UserPromptSubmit / PostToolUse block: the reason. */
  block?: string;
  /** PermissionRequest: the decision. */
  permission?: { behavior: "allow" } | { behavior: "deny"; message: string };
  /** `continue: false`: stop processing; `stopReason` says why. */
  stop?: { reason: string | null };
  /** `systemMessage`: shown to the user as a warning. */
  systemMessage?: string;
  /** PreToolUse `updatedInput`: the tool input to use instead. */
  updatedInput?: unknown;
}

/** A hook written in the embedding program (library): called in process with the payload. */
export type HookCallback<E extends HookEventName = HookEventName> = (
  input: HookInput<E>,
) => HookCallbackResult | Promise<HookCallbackResult>;

/** A callback answers as a command hook's stdout would (an object in Codex's output schema), or nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: a callback that returns nothing (`async () => {}`) must fit.
export type HookCallbackResult = Record<string, unknown> | string | undefined | null | void;

/** `hooks: { PreToolUse: async (input) => ... }` in the library's thread options. */
export type HookCallbacks = { [E in HookEventName]?: HookCallback<E> | HookCallback<E>[] };
