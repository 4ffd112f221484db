/**
 * `request_user_input` (feature `collaboration_modes`): the model asks the user one or more
 * questions, each with suggested answers, instead of guessing. The front-end asks (MCP
 * elicitation, app-server request, a library callback) and the answers come back as Codex's
 * JSON `{"answers": {qid: {"answers": [...]}}}`. A front-end that cannot ask anybody answers
 * with Codex's exec text; no answer in time is said plainly.
 */
import { z } from "zod";
import { defineFunctionTool } from "../define-tool.js";
import { type ToolDefinition, ToolError } from "../types.js";

/** What the model reads when nobody can be asked (Codex's exec says this). */
export const USER_INPUT_UNAVAILABLE = "request_user_input is unavailable in Custom mode";

const option = z.object({
  label: z.string().describe("The answer as the user would pick it, a few words."),
  description: z.string().describe("What choosing it means."),
});

const question = z.object({
  id: z.string().describe("A short id for this question; the answers are keyed by it."),
  header: z.string().describe("A title of a few words."),
  question: z.string().describe("The question itself."),
  options: z.array(option).optional().describe("Suggested answers; the user may also answer freely."),
});

const DESCRIPTION =
  "Ask the user questions when the task depends on a choice only they can make (do not ask what you can " +
  "find out yourself). Each question has an id, a short header, the question and suggested answers. " +
  'Returns {"answers": {"<id>": {"answers": ["…"]}}}.';

export function requestUserInputTool(): ToolDefinition {
  return defineFunctionTool({
    name: "request_user_input",
    description: DESCRIPTION,
    parameters: z.object({
      questions: z.array(question).describe("The questions, in the order to ask them."),
    }),
    supportsParallel: false,
    handle: async (args, inv) => {
      if (args.questions.length === 0)
        throw ToolError.respond("request_user_input needs at least one question");
      const outcome = await inv.turn.requestUserInput(inv.callId, args.questions);
      switch (outcome.kind) {
        case "answered":
          return { content: JSON.stringify(outcome.response) };
        case "unavailable":
          return { content: USER_INPUT_UNAVAILABLE, success: false };
        case "declined":
          return { content: "the user declined to answer", success: false };
        case "timed_out":
          return { content: `the user did not answer within ${outcome.timeoutMs} ms`, success: false };
        case "aborted":
          return { content: "aborted", success: false };
      }
    },
  });
}
