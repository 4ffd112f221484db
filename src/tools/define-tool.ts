/**
 * `defineFunctionTool`: a function tool from a zod parameter schema and a handler. The spec
 * (what the model sees) and the argument parsing (Codex's serde messages) both derive from
 * the one schema; the arguments are parsed once, when the call is prepared, and travel with it.
 */
import type { z } from "zod";
import type { FunctionToolSpec } from "../protocol/tool-spec.js";
import { ArgumentsError, parseToolArguments } from "./json-args.js";
import { toParametersSchema } from "./json-schema.js";
import {
  type PreparedCall,
  runsAsIs,
  type ToolDefinition,
  ToolError,
  type ToolInvocation,
  type ToolOutput,
} from "./types.js";

export { looseEnum, type SerdeMeta, withSerde } from "./json-args.js";

interface CommonOptions<S extends z.ZodObject> {
  name: string;
  /** Shown to the model. */
  description: string;
  parameters: S;
  /** May run concurrently with other parallel-safe calls of the same response. */
  supportsParallel: boolean;
}

/**
 * A tool that just runs (`handle`), or one that plans first (`prepare`: what the call would
 * change, for the gate, and how to run it). Either sees only valid arguments. Throw ToolError
 * for failures meant for the model.
 */
export type FunctionToolOptions<S extends z.ZodObject> = CommonOptions<S> &
  (
    | { handle: (args: z.infer<S>, invocation: ToolInvocation) => Promise<ToolOutput> }
    | { prepare: (args: z.infer<S>, invocation: ToolInvocation) => Promise<PreparedCall> }
  );

/** Codex's prefix for arguments that do not fit the parameters. */
export const PARSE_FAILURE = "failed to parse function arguments: ";

/**
 * Build a function tool: spec `{type:"function", name, description, strict:false, parameters}`,
 * a handler that takes `function` payloads and answers bad arguments with
 * `failed to parse function arguments: {serde message}`.
 */
export function defineFunctionTool<S extends z.ZodObject>(opts: FunctionToolOptions<S>): ToolDefinition {
  const spec: FunctionToolSpec = {
    type: "function",
    name: opts.name,
    description: opts.description,
    strict: false,
    parameters: toParametersSchema(opts.parameters),
  };
  return {
    spec,
    supportsParallel: opts.supportsParallel,
    handler: {
      kinds: ["function"],
      async prepare(invocation) {
        const args = parseFunctionArguments(opts.name, invocation, opts.parameters);
        if ("prepare" in opts) return opts.prepare(args, invocation);
        return runsAsIs(() => opts.handle(args, invocation));
      },
    },
  };
}

/** A function call's arguments, checked against `schema`; bad ones become ToolError.respond. */
export function parseFunctionArguments<S extends z.ZodType>(
  tool: string,
  invocation: ToolInvocation,
  schema: S,
): z.infer<S> {
  if (invocation.payload.kind !== "function") {
    throw ToolError.respond(`${tool} handler received unsupported payload`);
  }
  try {
    return parseToolArguments(invocation.payload.arguments, schema);
  } catch (error) {
    if (error instanceof ArgumentsError)
      throw ToolError.respond(PARSE_FAILURE + error.message, { cause: error });
    throw error;
  }
}
