/**
 * Approval questions → MCP elicitation, and answers → ReviewDecision.
 * The request carries Codex's fields (reference/mcp-server: message, requestedSchema, threadId,
 * codex_elicitation, codex_mcp_tool_call_id, codex_event_id, codex_call_id, codex_command /
 * codex_cwd / codex_parsed_cmd or codex_changes), so Codex-era clients keep working.
 * Answers: Codex's `{decision}` (approved | approved_for_session | denied | abort) or MCP's
 * `{action}` (accept → approved, or the `content.decision` given; decline → denied;
 * cancel → abort). Anything else, no answer, or no elicitation support: the declared outcome.
 */
import type { ApprovalRequestEvent, ReviewDecision } from "../../protocol/events.js";
import { shellQuote } from "../../util/shell-quote.js";
import type { ServerToolContext } from "./server-tool.js";

/** What applies when nobody can answer (no elicitation, no answer in time, unreadable answer). */
export const DECLARED_OUTCOME: ReviewDecision = "denied";

const DECISIONS: readonly ReviewDecision[] = ["approved", "approved_for_session", "denied", "abort"];

/** The elicitation for one approval request: the message and Codex's extra fields. */
export function elicitationFor(
  event: ApprovalRequestEvent,
  threadId: string,
  requestId: string | number | undefined,
): { message: string; meta: Record<string, unknown> } {
  const common = {
    threadId,
    codex_mcp_tool_call_id: String(requestId ?? ""),
    codex_event_id: event.turn_id,
    codex_call_id: event.call_id,
  };
  if (event.type === "exec_approval_request" && event.mcp_tool_call) {
    const { server, tool, arguments: args } = event.mcp_tool_call;
    return {
      message: `Allow the ${server} MCP server to run tool "${tool}" with ${JSON.stringify(args ?? {})}?`,
      meta: {
        ...common,
        codex_elicitation: "mcp-tool-call-approval",
        codex_mcp_server: server,
        codex_mcp_tool: tool,
      },
    };
  }
  if (event.type === "exec_approval_request" && event.network_approval_context) {
    const { host, protocol } = event.network_approval_context;
    return {
      message: `Allow \`${shellQuote(event.command)}\` to reach ${host} (${protocol}), which the network policy blocked?`,
      meta: {
        ...common,
        codex_elicitation: "network-approval",
        codex_network_host: host,
        codex_network_protocol: protocol,
        codex_command: event.command,
        codex_cwd: event.cwd,
      },
    };
  }
  if (event.type === "exec_approval_request") {
    return {
      message: `Allow Codex to run \`${shellQuote(event.command)}\` in \`${event.cwd}\`?`,
      meta: {
        ...common,
        codex_elicitation: "exec-approval",
        codex_command: event.command,
        codex_cwd: event.cwd,
        codex_parsed_cmd: parsedCommand(event.command),
        ...(event.reason ? { codex_reason: event.reason } : {}),
      },
    };
  }
  return {
    message: "Allow Codex to apply proposed code changes?",
    meta: {
      ...common,
      codex_elicitation: "patch-approval",
      codex_changes: event.changes,
      ...(event.reason ? { codex_reason: event.reason } : {}),
      ...(event.grant_root ? { codex_grant_root: event.grant_root } : {}),
    },
  };
}

/** Map a client's elicitation answer to a decision; null when it is not one we understand. */
export function decisionFromAnswer(answer: Record<string, unknown>): ReviewDecision | null {
  const direct = asDecision(answer.decision);
  if (direct) return direct;
  switch (answer.action) {
    case "accept": {
      const content = answer.content;
      const chosen =
        content !== null && typeof content === "object" && "decision" in content
          ? asDecision(content.decision)
          : null;
      return chosen ?? "approved";
    }
    case "decline":
      return "denied";
    case "cancel":
      return "abort";
    default:
      return null;
  }
}

/**
 * Ask the client about `event` and return its decision; the declared outcome when the client
 * has no elicitation, does not answer within the bound, or answers something unreadable.
 */
export async function decideApproval(
  event: ApprovalRequestEvent,
  threadId: string,
  context: ServerToolContext,
): Promise<{ decision: ReviewDecision; asked: boolean }> {
  if (!context.elicit) return { decision: DECLARED_OUTCOME, asked: false };
  const answer = await context.elicit(elicitationFor(event, threadId, context.requestId)).catch(() => null);
  if (!answer) return { decision: DECLARED_OUTCOME, asked: true };
  return { decision: decisionFromAnswer(answer) ?? DECLARED_OUTCOME, asked: true };
}

function asDecision(value: unknown): ReviewDecision | null {
  return DECISIONS.find((decision) => decision === value) ?? null;
}

/** Codex's parsed_cmd, simplified: each `&&` / `||` / `;` part of a `sh -c` script, as "unknown". */
function parsedCommand(command: readonly string[]): { type: "unknown"; cmd: string }[] {
  const script = command.length === 3 && /^-l?c$/.test(command[1] ?? "") ? (command[2] ?? "") : null;
  const parts = script === null ? [shellQuote(command)] : script.split(/\s*(?:&&|\|\||;)\s*/);
  return parts.filter((part) => part.length > 0).map((cmd) => ({ type: "unknown", cmd }));
}
