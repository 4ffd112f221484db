/**
 * Reading a hook's answer: its exit code, stdout and stderr become a HookAnswer for its event,
 * following Codex's output schema (`continue`, `stopReason`, `systemMessage`, `decision`,
 * `reason`, `hookSpecificOutput`). Exit 2 blocks with stderr as the reason; any other non-zero
 * exit is a non-blocking failure (a warning).
 */
import type { HookAnswer, HookEventName } from "./events.js";

/** What a run produced; `problem` is set when the hook failed without blocking. */
export interface ReadAnswer {
  answer: HookAnswer;
  problem?: string;
}

/** Events whose plain (non-JSON) stdout is context for the model. */
const PLAIN_STDOUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set([
  "SessionStart",
  "SubagentStart",
  "UserPromptSubmit",
]);

export function readCommandAnswer(
  event: HookEventName,
  exitCode: number | null,
  stdout: string,
  stderr: string,
): ReadAnswer {
  if (exitCode === 2) return { answer: blockingExit(event, stderr.trim() || "blocked by hook") };
  if (exitCode !== 0) {
    const detail = stderr.trim() || (exitCode === null ? "killed" : `exit code ${exitCode}`);
    return { answer: {}, problem: `hook failed: ${detail}` };
  }
  return readOutput(event, stdout);
}

/** A callback's or stdout's answer (a JSON object in Codex's output schema, or plain text). */
export function readOutput(event: HookEventName, output: string | Record<string, unknown>): ReadAnswer {
  if (typeof output !== "string") return { answer: fromObject(event, output) };
  const text = output.trim();
  if (text === "") return { answer: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (isObject(parsed)) return { answer: fromObject(event, parsed) };
  if (PLAIN_STDOUT_IS_CONTEXT.has(event)) return { answer: { additionalContext: text } };
  if (text.startsWith("{") || text.startsWith("["))
    return { answer: {}, problem: `hook returned invalid ${event} hook JSON output` };
  return { answer: {} };
}

function blockingExit(event: HookEventName, reason: string): HookAnswer {
  switch (event) {
    case "PermissionRequest":
      return { permission: { behavior: "deny", message: reason } };
    case "PreToolUse":
    case "UserPromptSubmit":
    case "PostToolUse":
    case "Stop":
    case "SubagentStop":
      return { block: reason };
    default:
      return {};
  }
}

function fromObject(event: HookEventName, output: Record<string, unknown>): HookAnswer {
  const answer: HookAnswer = {};
  if (output.continue === false) answer.stop = { reason: stringOr(output.stopReason) };
  const systemMessage = stringOr(output.systemMessage);
  if (systemMessage) answer.systemMessage = systemMessage;
  const specific = isObject(output.hookSpecificOutput) ? output.hookSpecificOutput : {};
  const context = stringOr(specific.additionalContext);
  if (context) answer.additionalContext = context;
  const reason = stringOr(output.reason);
  switch (event) {
    case "PreToolUse": {
      const decision = specific.permissionDecision;
      const why = stringOr(specific.permissionDecisionReason) ?? reason;
      if (decision === "deny" || output.decision === "block") answer.block = why ?? "blocked by hook";
      if ("updatedInput" in specific && specific.updatedInput !== undefined)
        answer.updatedInput = specific.updatedInput;
      break;
    }
    case "PermissionRequest": {
      const decision = isObject(specific.decision) ? specific.decision : null;
      if (decision?.behavior === "allow") answer.permission = { behavior: "allow" };
      if (decision?.behavior === "deny")
        answer.permission = { behavior: "deny", message: stringOr(decision.message) ?? "denied by hook" };
      break;
    }
    case "UserPromptSubmit":
    case "PostToolUse":
    case "Stop":
    case "SubagentStop":
      if (output.decision === "block") answer.block = reason ?? "blocked by hook";
      break;
    default:
      break;
  }
  return answer;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOr(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
