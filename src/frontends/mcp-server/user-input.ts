/**
 * request_user_input → MCP elicitation: one form field per question (its suggested answers as
 * an enum when it has them), answered by the client. accept → the answers; decline → the user
 * declined; cancel, no elicitation support, no answer in time → nobody could answer.
 */
import type { UserInputReply, UserQuestion } from "../../protocol/agents.js";
import type { EventOf } from "../../protocol/events.js";
import type { ServerToolContext } from "./server-tool.js";

/** The elicitation for the model's questions. */
export function userInputElicitation(
  event: EventOf<"request_user_input">,
  threadId: string,
): { message: string; requestedSchema: Record<string, unknown>; meta: Record<string, unknown> } {
  const properties: Record<string, unknown> = {};
  for (const question of event.questions) properties[question.id] = field(question);
  return {
    message: event.questions.map((question) => `${question.header}: ${question.question}`).join("\n"),
    requestedSchema: { type: "object", properties, required: event.questions.map((question) => question.id) },
    meta: { threadId, codex_elicitation: "request-user-input", codex_call_id: event.call_id },
  };
}

function field(question: UserQuestion): Record<string, unknown> {
  const labels = question.options?.map((option) => option.label) ?? [];
  return {
    type: "string",
    title: question.header,
    description: question.question,
    ...(labels.length > 0 ? { enum: labels } : {}),
  };
}

/** The client's answer as the tool's reply. */
export function replyFromAnswer(
  event: EventOf<"request_user_input">,
  answer: Record<string, unknown> | null,
): UserInputReply {
  if (!answer) return null;
  if (answer.action === "decline") return "declined";
  if (answer.action !== "accept") return null;
  const content = answer.content !== null && typeof answer.content === "object" ? answer.content : {};
  const answers: Record<string, { answers: string[] }> = {};
  for (const question of event.questions) {
    const value = (content as Record<string, unknown>)[question.id];
    answers[question.id] = { answers: typeof value === "string" && value !== "" ? [value] : [] };
  }
  return { answers };
}

/** Ask the client; never rejects. */
export async function askUser(
  event: EventOf<"request_user_input">,
  threadId: string,
  context: ServerToolContext,
): Promise<UserInputReply> {
  if (!context.elicit) return null;
  const answer = await context.elicit(userInputElicitation(event, threadId)).catch(() => null);
  return replyFromAnswer(event, answer);
}
