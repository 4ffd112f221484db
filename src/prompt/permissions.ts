/**
 * The developer message that tells the model what it may do. The bracketed facts line
 * keeps the machine-checkable part (mode, policy, network) in one place.
 */
import type { ApprovalPolicy, SandboxMode } from "../protocol/policy.js";

export interface PermissionsInput {
  sandboxMode: SandboxMode;
  approvalPolicy: ApprovalPolicy;
  networkAccess: boolean;
  /** Writable roots in order: extra roots, then cwd, then /tmp (workspace-write only). */
  writableRoots: readonly string[];
}

const SANDBOX_TEXT: Record<SandboxMode, string> = {
  "read-only":
    "The sandbox is read-only: you may read any file, but commands cannot write to the filesystem.",
  "workspace-write":
    "The sandbox lets commands write inside the writable roots listed below; everything else is read-only, and `.git` directories stay read-only.",
  "danger-full-access": "There is no sandbox: commands run with the user's full permissions. Be careful.",
};

const APPROVAL_TEXT: Record<ApprovalPolicy, string> = {
  untrusted: "Commands outside a small set of known read-only ones need the user's approval before they run.",
  "on-failure":
    "Commands run in the sandbox first; if one fails because of the sandbox, the user is asked whether to run it again without it.",
  "on-request":
    'Commands run in the sandbox. When one needs more (writing outside the roots, network), call it with `sandbox_permissions: "require_escalated"` and a one-sentence `justification`; the user decides.',
  never:
    "The user will not be asked for approval. Never request escalation; when the sandbox blocks something, find another way within it or explain what the user must do.",
};

/** Codex spells `untrusted` as `unless-trusted` in this message. */
function policyName(policy: ApprovalPolicy): string {
  return policy === "untrusted" ? "unless-trusted" : policy;
}

export function permissionsMessage(input: PermissionsInput): string {
  const network = input.networkAccess ? "enabled" : "restricted";
  const lines = [
    `${SANDBOX_TEXT[input.sandboxMode]} Network access is ${network}.`,
    APPROVAL_TEXT[input.approvalPolicy],
  ];
  if (input.sandboxMode === "workspace-write" && input.writableRoots.length > 0) {
    lines.push(`Writable roots: ${input.writableRoots.map((root) => `\`${root}\``).join(", ")}.`);
  }
  lines.push(
    `[sandbox_mode=${input.sandboxMode}; approval_policy=${policyName(input.approvalPolicy)}; network=${network}]`,
  );
  return `<permissions instructions>\n${lines.join("\n")}\n</permissions instructions>`;
}
