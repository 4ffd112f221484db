/**
 * What the session tools (listSessions, status, cancel, listModels, …) share: their argument
 * fields and `defineSessionTool`, which makes every failure an `isError` result whose
 * structuredContent has the tool's required output fields plus `error`.
 */
import { z } from "zod";
import { errorMessage } from "../../util/errors.js";
import { fail, type ServerToolResult, type Structured } from "./results.js";
import {
  defineServerTool,
  invalidArguments,
  type ServerTool,
  type ServerToolContext,
} from "./server-tool.js";

export const threadIdArg = z.string().min(1).describe("Thread id (a unique prefix works).");
export const pageSizeArg = z
  .number()
  .int()
  .describe("Max characters per page (default 40000; clamped to 1000..200000).")
  .optional();
export const pageTokenArg = z.string().min(1).describe("nextPageToken of a previous result.").optional();
export const errorField = z.string().describe("Set on failure (with isError).").optional();
export const threadArgs = z.object({ threadId: threadIdArg });
export const noArgs = z.object({});

export interface SessionToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  description: string;
  input: I;
  output: O;
  /** The output fields an error result carries, from the call's (raw or parsed) arguments. */
  errorFields?(args: Record<string, unknown>): Structured;
  handle(args: z.output<I>, context: ServerToolContext): Promise<ServerToolResult>;
}

/** A session tool: bad arguments and throws become `isError` results shaped like its output. */
export function defineSessionTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: SessionToolSpec<I, O>,
): ServerTool {
  const errorFields = spec.errorFields ?? (() => ({}));
  return defineServerTool({
    name: spec.name,
    description: spec.description,
    input: spec.input,
    output: spec.output,
    invalid: (error, args) => fail(invalidArguments(spec.name, error), errorFields(args)),
    async handle(args, context) {
      try {
        return await spec.handle(args, context);
      } catch (cause) {
        // A tool failure is a result, never a JSON-RPC error.
        return fail(`${spec.name} failed: ${errorMessage(cause)}`, errorFields(args));
      }
    },
  });
}

/** `{ threadId }` of a call's arguments ("" when it has none), for error results. */
export function threadIdOf(args: Record<string, unknown>): Structured {
  return { threadId: typeof args.threadId === "string" ? args.threadId : "" };
}

/** `result` with `fields` added to its structuredContent. */
export function withFields(result: ServerToolResult, fields: Structured): ServerToolResult {
  return { ...result, structuredContent: { ...result.structuredContent, ...fields } };
}
