/**
 * The `codex-reply` tool: one more prompt on an existing thread (live, or stored on disk by an
 * earlier server run). `threadId`, with `sessionId` and Codex's deprecated `conversationId` as
 * aliases.
 */
import type { z } from "zod";
import { settingsViolation } from "../../config/requirements.js";
import { codexOutput, replyArgs } from "./codex-schema.js";
import { plainError, type ServerToolResult } from "./results.js";
import { runTurn } from "./run-turn.js";
import { defineServerTool } from "./server-tool.js";
import { findThread, sessionNotFound } from "./thread-lookup.js";

/** The `codex-reply` tool. */
export const codexReplyTool = defineServerTool({
  name: "codex-reply",
  title: "Codex Reply",
  description:
    "Continue a Codex thread: send the next prompt to the thread a previous codex call returned " +
    "(threadId), with its whole history. Threads persist, so this works after a server restart.",
  input: replyArgs,
  output: codexOutput,
  invalid: parseError,
  async handle(args, context) {
    const { prompt, pageSize } = args;
    const id = args.threadId ?? args.sessionId ?? args.conversationId;
    if (!id)
      return plainError("Failed to parse thread_id: either threadId or conversationId must be provided");
    const found = await findThread(context.runtime, id);
    if (found === null) return sessionNotFound(id);
    if ("error" in found) return plainError(found.error);
    const refused = settingsViolation(context.runtime.config.requirements, {}, found.effectiveSettings);
    if (refused) return plainError(refused);
    return runTurn(found, { input: { text: prompt }, ...(pageSize ? { pageSize } : {}) }, context);
  },
});

function parseError(error: z.ZodError): ServerToolResult {
  const issue = error.issues[0];
  const field = issue?.path.join(".") || "arguments";
  const text =
    issue?.code === "invalid_type" && issue.input === undefined
      ? issue.message
      : `\`${field}\`: ${issue?.message}`;
  return plainError(`Failed to parse arguments for codex-reply: ${text}`);
}
