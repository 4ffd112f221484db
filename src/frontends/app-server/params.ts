/**
 * Request params → validated values, or a -32602 error worded as Codex words serde's
 * ("Invalid request: missing field `input`", "unknown variant `x`, expected one of …").
 */
import type { z } from "zod";
import { RpcError } from "./protocol/jsonrpc.js";

/** `params` checked against `schema`; throws RpcError -32602 describing the first problem. */
export function parseParams<T extends z.ZodType>(schema: T, params: unknown): z.output<T> {
  const parsed = schema.safeParse(params ?? {}, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw RpcError.invalidParams(`Invalid request: ${describeIssue(parsed.error)}`);
}

/** One line for the first problem of a failed parse. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid params";
  const field = issue.path.map(String).join(".");
  const where = field ? ` for \`${field}\`` : "";
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return `missing field \`${field}\``;
      return `invalid type${where}: expected ${issue.expected}, found ${kindOf(issue.input)}`;
    case "invalid_value": {
      const expected = issue.values.map((value) => `\`${String(value)}\``).join(", ");
      return `unknown variant \`${String(issue.input)}\`${where}, expected one of ${expected}`;
    }
    case "invalid_union": {
      // A discriminated union names the tag it could not match, and the tags it knows.
      const tag = issue.discriminator;
      const options = "options" in issue ? issue.options : undefined;
      if (tag && options?.length) {
        const given = isRecord(issue.input) ? issue.input[tag] : undefined;
        const expected = options.map((value) => `\`${String(value)}\``).join(", ");
        const at = field ? `${field}.${tag}` : tag;
        if (given === undefined) return `missing field \`${at}\``;
        return `unknown variant \`${String(given)}\` for \`${at}\`, expected one of ${expected}`;
      }
      // A name or an object (the approval policy): a name that is none of the names says so.
      const named =
        "errors" in issue ? issue.errors.flat().find((inner) => inner.code === "invalid_value") : undefined;
      if (named?.code === "invalid_value" && typeof issue.input === "string") {
        const expected = named.values.map((value) => `\`${String(value)}\``).join(", ");
        return `unknown variant \`${issue.input}\`${where}, expected one of ${expected}`;
      }
      return `invalid value${where}`;
    }
    default:
      return field ? `\`${field}\`: ${issue.message}` : issue.message;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
