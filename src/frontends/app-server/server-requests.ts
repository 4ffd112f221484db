/**
 * Questions a turn asks its client, as server → client JSON-RPC requests:
 * `item/commandExecution/requestApproval`, `item/fileChange/requestApproval` and (client tools)
 * `item/tool/call`. Each goes to the client that started the turn and has a bounded wait with a
 * declared outcome:
 * - approvals: no client, no answer in time, an error reply or an unreadable answer → decline;
 *   our bound ends a little before the core's own (approval_timeout_ms), so we decide, not it;
 * - questions to the user (`item/tool/requestUserInput`, request_user_input): an error reply →
 *   declined; no client → nobody to ask; no answer → the core's bound (approval_timeout_ms);
 * - tool calls: a JSON-RPC error reply → a failed result the model reads
 *   ("dynamic tool request failed: …"); no client → a failed result at once; no answer → the
 *   core's bound (client_tool_timeout_ms) ends the call with a failed result.
 * A turn that ends (interrupt, disconnect) cancels its open questions; late answers are ignored.
 * These are the app-server's responders for the one turn driver (common/turn-driver.ts), which
 * gives the thread each answer; undefined leaves a question to the thread's own bound.
 */

import type { z } from "zod";
import type { UserInputReply } from "../../protocol/agents.js";
import { type ClientToolResult, failedClientResult } from "../../protocol/client-tools.js";
import type {
  ApprovalRequestEvent,
  ElicitationResult,
  EventOf,
  ReviewDecision,
} from "../../protocol/events.js";
import { shellQuote } from "../../util/shell-quote.js";
import type { QuestionResponders } from "../common/turn-driver.js";
import type { ClientLink, PendingRequest } from "./client-link.js";
import { commandActions, proposedAmendment } from "./command-actions.js";
import {
  type ServerRequestMethod,
  type ServerRequestParams,
  type ServerRequestResult,
  serverRequests,
} from "./protocol/server-messages.js";
import { parsedCommand } from "./v1/event-msg.js";

/** The bounds questions wait within. */
export interface QuestionHost {
  /** How long an approval question waits for the client. */
  approvalBoundMs(): number;
  /** How long a client tool call waits (a safety net: the core's own bound ends it first). */
  toolBoundMs(): number;
  /** How long a question to the user waits (a safety net: the core's own bound ends it first). */
  userInputBoundMs(): number;
}

/** What the helpers need of a thread's channel (ThreadChannel implements it). */
export interface QuestionChannel {
  readonly id: string;
  /** The connected client that started turn `turnId`, if it is still here. */
  ownerOf(turnId: string): ClientLink | null;
  /**
   * Keep `question` open until the core ends call `callId` or its turn ends; `waitingOn`: it
   * asks a person (shown in the thread's status, its end announced).
   */
  track(
    turnId: string,
    callId: string,
    question: PendingRequest<unknown>,
    waitingOn?: "waitingOnApproval" | "waitingOnUserInput",
  ): void;
  /** Show call `callId`'s item as declined. */
  showDeclined(callId: string, cancel: boolean): void;
  /** Whether turn `turnId` was started by a v1 client (its questions are v1 requests). */
  legacyTurn(turnId: string): boolean;
}

/** Ask `owner` `method`; the answer is checked against the method's result schema. */
function ask<M extends ServerRequestMethod>(
  owner: ClientLink,
  method: M,
  params: ServerRequestParams<M>,
  timeoutMs: number,
): PendingRequest<ServerRequestResult<M>> {
  // Each method's result schema parses to ServerRequestResult<M>; the table lookup loses that link.
  const result = serverRequests[method].result as unknown as z.ZodType<ServerRequestResult<M>>;
  return owner.request(method, params, result, timeoutMs);
}

/** What applies when an approval gets no usable answer. */
export const DECLARED_APPROVAL: ReviewDecision = "denied";

type ApprovalAnswer = ServerRequestResult<"item/commandExecution/requestApproval">["decision"];

/**
 * Codex's decisions → the core's. An execpolicy amendment is taken as "for this session"; a
 * network policy amendment as allowing the host for the session, or denying it.
 */
export function reviewDecision(answer: ApprovalAnswer): ReviewDecision {
  if (typeof answer === "object")
    return "applyNetworkPolicyAmendment" in answer &&
      answer.applyNetworkPolicyAmendment.network_policy_amendment.action === "deny"
      ? "denied"
      : "approved_for_session";
  switch (answer) {
    case "accept":
      return "approved";
    case "acceptForSession":
      return "approved_for_session";
    case "decline":
      return "denied";
    case "cancel":
      return "abort";
  }
}

/** The app-server's responders: each question goes to the client that started its turn. */
export function clientResponders(host: QuestionHost, channel: QuestionChannel): QuestionResponders {
  return {
    approval: async (event) => {
      const decision = await decide(host, channel, channel.ownerOf(event.turn_id), event);
      if (decision === null) return undefined;
      // A sub-agent's command is the child's item, not one this thread shows.
      if ((decision === "denied" || decision === "abort") && event.agent_id === undefined)
        channel.showDeclined(event.call_id, decision === "abort");
      return decision;
    },
    userInput: (event) => userReply(host, channel, channel.ownerOf(event.turn_id), event),
    clientTool: async (event) =>
      (await toolResult(host, channel, channel.ownerOf(event.turn_id), event)) ?? undefined,
    elicitation: (event) => elicitationResult(host, channel, channel.ownerOf(event.turn_id), event),
  };
}

/**
 * How one protocol version asks for an approval and reads the answer: v2's
 * item/commandExecution/requestApproval and item/fileChange/requestApproval, or (a turn a v1
 * client started) execCommandApproval and applyPatchApproval.
 */
interface ApprovalWire<Exec extends ServerRequestMethod, Patch extends ServerRequestMethod> {
  exec: Exec;
  execParams(channel: QuestionChannel, event: EventOf<"exec_approval_request">): ServerRequestParams<Exec>;
  patch: Patch;
  patchParams(
    channel: QuestionChannel,
    event: EventOf<"apply_patch_approval_request">,
  ): ServerRequestParams<Patch>;
  /** The core's decision from the client's answer. */
  decision(answer: ServerRequestResult<Exec | Patch>): ReviewDecision;
}

const V2_APPROVALS: ApprovalWire<"item/commandExecution/requestApproval", "item/fileChange/requestApproval"> =
  {
    exec: "item/commandExecution/requestApproval",
    execParams: (channel, event) => ({
      ...v2Common(channel, event),
      command: shellQuote(event.command),
      cwd: event.cwd,
      commandActions: commandActions(event.command),
      ...networkParams(event),
    }),
    patch: "item/fileChange/requestApproval",
    patchParams: (channel, event) => ({ ...v2Common(channel, event), grantRoot: event.grant_root }),
    decision: (answer) => reviewDecision(answer.decision),
  };

/**
 * A command's question proposes an execpolicy amendment; a blocked host's carries Codex's
 * networkApprovalContext and proposes allowing that host.
 */
function networkParams(event: EventOf<"exec_approval_request">) {
  const network = event.network_approval_context;
  if (!network) return { proposedExecpolicyAmendment: proposedAmendment(event.command) };
  return {
    proposedExecpolicyAmendment: null,
    networkApprovalContext: { ...network },
    proposedNetworkPolicyAmendments: [{ host: network.host, action: "allow" as const }],
  };
}

/** `startedAtMs` (0.169+): a question is always asked live, so its start is now. */
function v2Common(channel: QuestionChannel, event: ApprovalRequestEvent) {
  return {
    threadId: channel.id,
    turnId: event.turn_id,
    itemId: event.call_id,
    reason: event.reason,
    startedAtMs: Date.now(),
  };
}

/** v1 answers with the core's decisions; an execpolicy amendment is taken as "for this session". */
const V1_APPROVALS: ApprovalWire<"execCommandApproval", "applyPatchApproval"> = {
  exec: "execCommandApproval",
  execParams: (channel, event) => ({
    ...v1Common(channel, event),
    command: event.command,
    cwd: event.cwd,
    parsedCmd: parsedCommand(event.command),
  }),
  patch: "applyPatchApproval",
  patchParams: (channel, event) => ({
    ...v1Common(channel, event),
    fileChanges: event.changes,
    grantRoot: event.grant_root,
  }),
  decision: ({ decision }) => (typeof decision === "object" ? "approved_for_session" : decision),
};

function v1Common(channel: QuestionChannel, event: ApprovalRequestEvent) {
  return { conversationId: channel.id, callId: event.call_id, reason: event.reason };
}

/** Ask the turn's client for an approval, in the protocol version that started the turn. */
function decide(
  host: QuestionHost,
  channel: QuestionChannel,
  owner: ClientLink | null,
  event: ApprovalRequestEvent,
): Promise<ReviewDecision | null> {
  if (!owner) return Promise.resolve(DECLARED_APPROVAL);
  return channel.legacyTurn(event.turn_id)
    ? askApproval(host, channel, owner, event, V1_APPROVALS)
    : askApproval(host, channel, owner, event, V2_APPROVALS);
}

async function askApproval<Exec extends ServerRequestMethod, Patch extends ServerRequestMethod>(
  host: QuestionHost,
  channel: QuestionChannel,
  owner: ClientLink,
  event: ApprovalRequestEvent,
  wire: ApprovalWire<Exec, Patch>,
): Promise<ReviewDecision | null> {
  const pending: PendingRequest<ServerRequestResult<Exec | Patch>> =
    event.type === "exec_approval_request"
      ? ask(owner, wire.exec, wire.execParams(channel, event), host.approvalBoundMs())
      : ask(owner, wire.patch, wire.patchParams(channel, event), host.approvalBoundMs());
  channel.track(event.turn_id, event.call_id, pending, "waitingOnApproval");
  const outcome = await pending.outcome;
  // The turn is over (interrupted, or its client left and it is being interrupted): the core
  // answers the question itself (abort), so there is nothing left to say.
  if (outcome.kind === "cancelled" || outcome.kind === "closed") return null;
  if (outcome.kind !== "result") return DECLARED_APPROVAL;
  return wire.decision(outcome.value);
}

async function toolResult(
  host: QuestionHost,
  channel: QuestionChannel,
  owner: ClientLink | null,
  event: EventOf<"client_tool_call_request">,
): Promise<ClientToolResult | null> {
  if (!owner) return failedClientResult(`no client is connected to run ${event.tool}`);
  const pending = ask(
    owner,
    "item/tool/call",
    {
      threadId: channel.id,
      turnId: event.turn_id,
      callId: event.call_id,
      namespace: null,
      tool: event.tool,
      arguments: event.arguments,
    },
    host.toolBoundMs(),
  );
  channel.track(event.turn_id, event.call_id, pending);
  const outcome = await pending.outcome;
  switch (outcome.kind) {
    case "result":
      return outcome.value;
    case "error":
      // The model reads why: Codex sends only "dynamic tool request failed".
      return failedClientResult(`dynamic tool request failed: ${outcome.message}`);
    case "timeout":
      return failedClientResult(`the client did not answer the ${event.tool} call in time`);
    default:
      // Cancelled (the core ended the call: its bound, or the turn ended) or the client left.
      return null;
  }
}

async function userReply(
  host: QuestionHost,
  channel: QuestionChannel,
  owner: ClientLink | null,
  event: EventOf<"request_user_input">,
): Promise<UserInputReply | undefined> {
  if (!owner) return null;
  const pending = ask(
    owner,
    "item/tool/requestUserInput",
    {
      threadId: channel.id,
      turnId: event.turn_id,
      itemId: event.call_id,
      // 0.171: the turn waits for the answer (until the question's bound).
      isBlocking: true,
      questions: event.questions.map((question) => ({ ...question, options: question.options ?? null })),
    },
    host.userInputBoundMs(),
  );
  channel.track(event.turn_id, event.call_id, pending, "waitingOnUserInput");
  const outcome = await pending.outcome;
  if (outcome.kind === "result") return outcome.value;
  if (outcome.kind === "error") return "declined";
  return undefined;
}

/**
 * An MCP server's elicitation, passed to `owner` (`mcpServer/elicitation/request`). No client,
 * an error reply or an unreadable answer: declined; no answer in time: the core's bound declines it.
 */
async function elicitationResult(
  host: QuestionHost,
  channel: QuestionChannel,
  owner: ClientLink | null,
  event: EventOf<"elicitation_request">,
): Promise<ElicitationResult | undefined> {
  if (!owner) return { action: "decline" };
  const { request } = event;
  const pending = ask(
    owner,
    "mcpServer/elicitation/request",
    {
      threadId: channel.id,
      turnId: event.turn_id,
      serverName: event.server_name,
      ...(request.mode === "form"
        ? { mode: "form", message: request.message, requestedSchema: request.requestedSchema }
        : { mode: "url", message: request.message, url: request.url, elicitationId: request.elicitationId }),
    },
    host.userInputBoundMs(),
  );
  channel.track(event.turn_id, event.id, pending, "waitingOnUserInput");
  const outcome = await pending.outcome;
  if (outcome.kind === "result") {
    const { action, content } = outcome.value;
    return action === "accept" ? { action, content: content ?? {} } : { action };
  }
  if (outcome.kind === "error") return { action: "decline" };
  return undefined;
}
