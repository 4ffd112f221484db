/**
 * The `codex-reply` tool: one more prompt on an existing thread (live, or stored on disk by an
 * earlier server run). `threadId`, with `sessionId` and Codex's deprecated `conversationId` as
 * aliases. Also the thread lookup `codex` uses for `sessionId`.
 */
import { z } from "zod";
import type { Thread } from "../../session/thread.js";
import type { ThreadManager } from "../../session/thread-manager.js";
import { runTurn, threadResult } from "./run-turn.js";
import type { JsonSchemaObject, ServerTool, ServerToolResult } from "./server-tool.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The structured result both Codex tools declare. */
export const CODEX_OUTPUT_SCHEMA: JsonSchemaObject = {
  type: "object",
  properties: {
    threadId: { type: "string", description: "The thread to continue with codex-reply." },
    content: { type: "string", description: "The agent's final message of the turn." },
  },
  required: ["threadId", "content"],
};

/**
 * Client-chosen session names (the CLI wrappers' `sessionId`, which need not be a UUID) →
 * thread ids. In memory: a restarted server continues threads by their real id.
 */
const aliases = new Map<string, string>();

/** Remember that session name `name` means thread `threadId`. */
export function setAlias(name: string, threadId: string): void {
  if (name !== threadId) aliases.set(name, threadId);
}

/**
 * The thread `id` names (a thread id or a session alias): the live one, else loaded from its
 * rollout. `{ error }` when `id` cannot name a thread; null when there is no such thread.
 */
/** Whether `id` has the form of a thread id (a UUID). */
export function isThreadId(id: string): boolean {
  return UUID.test(id);
}

export async function findThread(
  threads: ThreadManager,
  id: string,
): Promise<Thread | null | { error: string }> {
  const threadId = aliases.get(id) ?? id;
  if (!isThreadId(threadId))
    return { error: `Failed to parse thread_id: '${id}' is not a thread id (a UUID)` };
  const live = threads.peek(threadId);
  if (live) return live;
  try {
    const thread = await threads.resume(threadId);
    return thread.id === threadId ? thread : null;
  } catch {
    return null;
  }
}

/** Codex's text for an unknown thread, with structuredContent as Codex sends it. */
export function sessionNotFound(id: string): ServerToolResult {
  return threadResult(id, `Session not found for thread_id: ${id}`, true);
}

const replyArgs = z.looseObject({
  prompt: z.string({ error: "missing field `prompt`" }),
  threadId: z.string().optional(),
  sessionId: z.string().optional(),
  conversationId: z.string().optional(),
  pageSize: z.number().int().positive().optional(),
});

const INPUT_SCHEMA: JsonSchemaObject = {
  type: "object",
  properties: {
    prompt: { type: "string", description: "The next message to the agent on this thread." },
    threadId: {
      type: "string",
      description: "The threadId a previous codex or codex-reply result returned.",
    },
    conversationId: { type: "string", description: "Deprecated spelling of threadId (Codex)." },
    sessionId: { type: "string", description: "Alias of threadId (CLI wrappers)." },
    pageSize: {
      type: "integer",
      description: "Split a long result into pages of this many characters (default 40000).",
    },
  },
  required: ["prompt"],
};

/** The `codex-reply` tool. */
export function codexReplyTool(): ServerTool {
  return {
    name: "codex-reply",
    title: "Codex Reply",
    description:
      "Continue a Codex thread: send the next prompt to the thread a previous codex call returned " +
      "(threadId), with its whole history. Threads persist, so this works after a server restart.",
    inputSchema: INPUT_SCHEMA,
    outputSchema: CODEX_OUTPUT_SCHEMA,
    async handle(args, context) {
      const parsed = replyArgs.safeParse(args);
      if (!parsed.success) return parseError(parsed.error);
      const { prompt, pageSize } = parsed.data;
      const id = parsed.data.threadId ?? parsed.data.sessionId ?? parsed.data.conversationId;
      if (!id)
        return plainError("Failed to parse thread_id: either threadId or conversationId must be provided");
      const found = await findThread(context.threads, id);
      if (found === null) return sessionNotFound(id);
      if ("error" in found) return plainError(found.error);
      return runTurn(found, { input: { text: prompt }, ...(pageSize ? { pageSize } : {}) }, context);
    },
  };
}

/** An isError result that belongs to no thread. */
export function plainError(text: string): ServerToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function parseError(error: z.ZodError): ServerToolResult {
  const issue = error.issues[0];
  const field = issue?.path.join(".") || "arguments";
  const text =
    issue?.code === "invalid_type" && issue.input === undefined
      ? issue.message
      : `\`${field}\`: ${issue?.message}`;
  return plainError(`Failed to parse arguments for codex-reply: ${text}`);
}
