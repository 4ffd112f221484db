/**
 * Policy decisions, pure: given what a call would do and the turn's approval policy and
 * sandbox mode, run it, ask first, or reject it (and with which text for the model).
 *
 * Commands (planExec), by approval policy:
 * - every policy: a forbidden rule rejects; an approved-for-session command is not asked again
 *   (the orchestrator checks that memory before asking).
 * - `never`: never asks. An escalation request, or a rule that wants a prompt, is rejected
 *   with text for the model; everything else runs under the sandbox.
 * - `untrusted`: asks before anything not known safe (or allowed by a rule).
 * - `on-request`: asks only when the model requests escalation (with its justification as
 *   the reason) or a rule says prompt. Known-safe commands are never asked, escalation or not.
 * - `on-failure`: like on-request, and a sandboxed run that the sandbox denied is offered
 *   again without the sandbox (reason "command failed; retry without sandbox?").
 * An approved escalation runs unsandboxed; anything else runs under the sandbox mode, which
 * under danger-full-access means unsandboxed. `untrusted` also offers the retry on denial.
 *
 * Patches (planPatch): danger-full-access writes anywhere; `untrusted` asks for every patch;
 * otherwise a patch within the writable roots applies, and one outside them is asked about,
 * or rejected under `never` (read-only has no writable roots, so there every patch is outside).
 */
import type { ApprovalPolicy, SandboxMode } from "../protocol/policy.js";
import { describePattern, type ExecPolicy, type PrefixRule } from "./exec-policy.js";
import { isKnownSafeCommand, shellScriptOf } from "./safe-commands.js";
import { parseSimpleScript, splitScriptLoosely } from "./shell-parse.js";

/** Codex's texts (reference sections 3, 5 and 6). */
export const NEVER_ESCALATION_SHELL =
  "approval policy is Never; reject command — you should not ask for escalated permissions if the approval policy is Never";
export const NEVER_ESCALATION_EXEC_COMMAND =
  "approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never";
export const EXEC_REJECTED_BY_USER = "exec command rejected by user";
export const RETRY_WITHOUT_SANDBOX_REASON = "command failed; retry without sandbox?";
export const PATCH_REJECTED_BY_SETTINGS =
  "patch rejected: writing outside of the project; rejected by user approval settings";
/** Ours: Codex's wording for a patch the user declined is not recorded. */
export const PATCH_REJECTED_BY_USER = "patch rejected by user";

/** What the exec policy and the known-safe list say about a command. */
export type CommandSafety =
  | { kind: "forbidden"; rule: PrefixRule }
  | { kind: "prompt"; rule: PrefixRule }
  /** Known safe, or every part of it allowed by a rule. */
  | { kind: "trusted" }
  | { kind: "unknown" };

/**
 * Classify argv. Forbid/prompt rules look at every command of a shell script, read loosely so
 * `$(git push)` still counts; "trusted" needs a strictly readable script whose every command
 * is known safe or allowed by a rule.
 */
export function classifyCommand(argv: readonly string[], rules: ExecPolicy): CommandSafety {
  const script = shellScriptOf(argv);
  let prompt: PrefixRule | null = null;
  for (const words of looseCommands(argv, 0)) {
    const rule = rules.match(words);
    if (rule?.decision === "forbidden") return { kind: "forbidden", rule };
    if (rule?.decision === "prompt") prompt ??= rule;
  }
  if (prompt) return { kind: "prompt", rule: prompt };
  if (isKnownSafeCommand(argv) || rules.match(argv)?.decision === "allow") return { kind: "trusted" };
  if (script !== null) {
    const strict = parseSimpleScript(script);
    if (strict?.every((words) => isKnownSafeCommand(words) || rules.match(words)?.decision === "allow")) {
      return { kind: "trusted" };
    }
  }
  return { kind: "unknown" };
}

/**
 * argv and every command found in it for forbid/prompt rules: the commands of a shell script
 * (read loosely), of shells nested in it, and each without leading `VAR=value` assignments.
 * A guardrail, not a boundary: wrappers such as `env`, `xargs` or `timeout` are not looked into.
 */
function looseCommands(argv: readonly string[], depth: number): (readonly string[])[] {
  const found: (readonly string[])[] = [argv];
  const first = argv.findIndex((word) => !ASSIGNMENT.test(word));
  const bare = first < 0 ? [] : argv.slice(first);
  if (bare.length > 0 && bare.length < argv.length) found.push(bare);
  const script = shellScriptOf(bare);
  if (script === null || depth >= 3) return found;
  for (const words of splitScriptLoosely(script)) found.push(...looseCommands(words, depth + 1));
  return found;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export interface ExecPlanInput {
  safety: CommandSafety;
  approvalPolicy: ApprovalPolicy;
  sandboxMode: SandboxMode;
  /** The model asked to run outside the sandbox. */
  escalation: { justification?: string | undefined } | null;
  /** Whose wording an escalation rejection under `never` uses. */
  tool: "shell" | "exec_command";
}

/**
 * `escalated`: run without the sandbox (only ever after asking). `retryOnDenial`: a sandboxed
 * run the sandbox denied may be offered again without it.
 */
export type ExecPlan =
  | { action: "reject"; message: string }
  /** `rule`: an exec-policy `prompt` rule asks (the granular policy's `rules` category). */
  | { action: "ask"; reason: string | null; escalated: boolean; retryOnDenial: boolean; rule?: boolean }
  | { action: "run"; escalated: false; retryOnDenial: boolean };

export function planExec(input: ExecPlanInput): ExecPlan {
  const { safety, approvalPolicy, sandboxMode, escalation } = input;
  if (safety.kind === "forbidden") return { action: "reject", message: forbiddenMessage(safety.rule) };
  const retryOnDenial =
    sandboxMode !== "danger-full-access" &&
    (approvalPolicy === "on-failure" || approvalPolicy === "untrusted");

  if (approvalPolicy === "never") {
    if (escalation) {
      const message = input.tool === "exec_command" ? NEVER_ESCALATION_EXEC_COMMAND : NEVER_ESCALATION_SHELL;
      return { action: "reject", message };
    }
    if (safety.kind === "prompt") return { action: "reject", message: promptUnderNeverMessage(safety.rule) };
    return { action: "run", escalated: false, retryOnDenial: false };
  }
  // Escalating out of danger-full-access changes nothing: no need to ask for it.
  const wantsEscalation = escalation !== null && sandboxMode !== "danger-full-access";
  if (safety.kind === "prompt") {
    return {
      action: "ask",
      reason: ruleReason(safety.rule, escalation),
      escalated: wantsEscalation,
      retryOnDenial: retryOnDenial && !wantsEscalation,
      rule: true,
    };
  }
  // A known-safe command only reads: the sandbox never stops it, so escalation is not needed.
  if (safety.kind === "trusted") return { action: "run", escalated: false, retryOnDenial };
  if (wantsEscalation) {
    return {
      action: "ask",
      reason: escalation?.justification ?? null,
      escalated: true,
      retryOnDenial: false,
    };
  }
  if (approvalPolicy === "untrusted") return { action: "ask", reason: null, escalated: false, retryOnDenial };
  return { action: "run", escalated: false, retryOnDenial };
}

export function forbiddenMessage(rule: PrefixRule): string {
  const why = rule.justification ? `: ${rule.justification}` : "";
  return `command rejected: the exec policy forbids \`${describePattern(rule.pattern)}\`${why}`;
}

function promptUnderNeverMessage(rule: PrefixRule): string {
  const why = rule.justification ? ` (${rule.justification})` : "";
  return `command rejected: the exec policy requires approval for \`${describePattern(rule.pattern)}\`${why}, and the approval policy is never`;
}

function ruleReason(rule: PrefixRule, escalation: { justification?: string | undefined } | null): string {
  const why = rule.justification ?? `the exec policy asks before \`${describePattern(rule.pattern)}\``;
  return escalation?.justification ? `${escalation.justification} (${why})` : why;
}

export interface PatchPlanInput {
  approvalPolicy: ApprovalPolicy;
  sandboxMode: SandboxMode;
  /** The patch's real paths that are outside the writable roots (see patch-paths.ts). */
  outside: readonly string[];
  /** Every path of the patch was approved for the session earlier. */
  remembered: boolean;
}

export type PatchDecision =
  | { action: "run" }
  | { action: "ask"; reason: string | null }
  | { action: "reject"; message: string };

export function planPatch(input: PatchPlanInput): PatchDecision {
  if (input.sandboxMode === "danger-full-access" || input.remembered) return { action: "run" };
  const outside = input.outside.length > 0;
  if (input.approvalPolicy === "never") {
    return outside ? { action: "reject", message: PATCH_REJECTED_BY_SETTINGS } : { action: "run" };
  }
  if (outside) return { action: "ask", reason: outsideReason(input.outside, input.sandboxMode) };
  return input.approvalPolicy === "untrusted" ? { action: "ask", reason: null } : { action: "run" };
}

function outsideReason(paths: readonly string[], mode: SandboxMode): string {
  const shown = paths.slice(0, 3).join(", ") + (paths.length > 3 ? `, and ${paths.length - 3} more` : "");
  return mode === "read-only"
    ? `the sandbox is read-only; the patch writes ${shown}`
    : `the patch writes outside the writable roots: ${shown}`;
}
