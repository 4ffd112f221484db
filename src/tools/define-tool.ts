/**
 * `defineFunctionTool`: a function tool from a zod parameter schema and a handler. The spec
 * (what the model sees) and the argument parsing (Codex's serde messages) both derive from
 * the one schema.
 */
import type { z } from "zod";
import type { FunctionToolSpec } from "../protocol/tool-spec.js";
import { ArgumentsError, parseToolArguments } from "./json-args.js";
import { toParametersSchema } from "./json-schema.js";
import {
  type ApprovalRequest,
  type ToolDefinition,
  ToolError,
  type ToolInvocation,
  type ToolOutput,
} from "./types.js";

export { looseEnum, type SerdeMeta, withSerde } from "./json-args.js";

export interface FunctionToolOptions<S extends z.ZodObject> {
  name: string;
  /** Shown to the model. */
  description: string;
  parameters: S;
  /** May run concurrently with other parallel-safe calls of the same response. */
  supportsParallel: boolean;
  /** Whether this call may change the workspace (defaults to false). Only called with valid args. */
  isMutating?: (args: z.infer<S>, invocation: ToolInvocation) => boolean;
  /** Describe a mutating call for the approval gate (see ToolHandler.approvalRequest). Only called with valid args. */
  approvalRequest?: (args: z.infer<S>, invocation: ToolInvocation) => Promise<ApprovalRequest | null>;
  /** Throw ToolError for failures meant for the model. */
  handle: (args: z.infer<S>, invocation: ToolInvocation) => Promise<ToolOutput>;
}

type Parsed<T> = { ok: true; args: T } | { ok: false; error: ArgumentsError };

/** Codex's prefix for arguments that do not fit the parameters. */
const PARSE_FAILURE = "failed to parse function arguments: ";

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
  // isMutating and handle see the same invocation: parse its arguments once.
  const parsed = new WeakMap<ToolInvocation, Parsed<z.infer<S>>>();
  const parse = (invocation: ToolInvocation): Parsed<z.infer<S>> => {
    const hit = parsed.get(invocation);
    if (hit) return hit;
    let result: Parsed<z.infer<S>>;
    if (invocation.payload.kind !== "function") {
      result = { ok: false, error: new ArgumentsError(`${opts.name} handler received unsupported payload`) };
    } else {
      try {
        result = { ok: true, args: parseToolArguments(invocation.payload.arguments, opts.parameters) };
      } catch (error) {
        if (!(error instanceof ArgumentsError)) throw error;
        result = { ok: false, error };
      }
    }
    parsed.set(invocation, result);
    return result;
  };

  return {
    spec,
    supportsParallel: opts.supportsParallel,
    handler: {
      kinds: ["function"],
      isMutating(invocation) {
        const result = parse(invocation);
        // Unparseable: assume the worst; handle() will report the error to the model.
        if (!result.ok) return true;
        return opts.isMutating?.(result.args, invocation) ?? false;
      },
      async approvalRequest(invocation) {
        const result = parse(invocation);
        // Bad arguments: nothing to describe; handle() reports them to the model.
        if (!result.ok || !opts.approvalRequest) return null;
        return opts.approvalRequest(result.args, invocation);
      },
      async handle(invocation) {
        if (invocation.payload.kind !== "function") {
          throw ToolError.respond(`${opts.name} handler received unsupported payload`);
        }
        const result = parse(invocation);
        if (!result.ok) {
          throw ToolError.respond(PARSE_FAILURE + result.error.message, { cause: result.error });
        }
        return opts.handle(result.args, invocation);
      },
    },
  };
}
