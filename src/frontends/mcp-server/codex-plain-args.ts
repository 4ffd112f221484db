/**
 * The `codex` tool's arguments checked without zod, for the stdio server's first call
 * (stdio-quick-call.ts), which runs before zod is loaded. Only plainly valid arguments pass, and
 * they come out as codexArgs (codex-schema.ts) would parse them; anything else, or anything in
 * doubt, is null and goes to the zod schema, which gives the error its wording.
 * test/mcp-server/codex-plain-args.test.ts holds the two equal.
 */
import { APPROVAL_POLICIES, SANDBOX_MODES } from "../../protocol/policy-names.js";
import type { CodexArgs } from "./codex-schema.js";

type Check = (value: unknown) => boolean;

const isString: Check = (value) => typeof value === "string";
const isBoolean: Check = (value) => typeof value === "boolean";
const oneOf =
  (values: readonly string[]): Check =>
  (value) =>
    typeof value === "string" && values.includes(value);
const isRecord: Check = (value) =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype &&
  !Object.hasOwn(value, "__proto__");

/** Each field of codexArgs and what a plain value of it is. */
const FIELDS: Record<string, Check> = {
  prompt: isString,
  "approval-policy": oneOf(APPROVAL_POLICIES),
  sandbox: oneOf(SANDBOX_MODES),
  config: isRecord,
  cwd: isString,
  model: isString,
  profile: isString,
  "base-instructions": isString,
  "developer-instructions": isString,
  "compact-prompt": isString,
  "include-plan-tool": isBoolean,
  sessionId: isString,
  resetSession: isBoolean,
  image: (value) => isString(value) || (Array.isArray(value) && value.every(isString)),
  pageSize: (value) => Number.isSafeInteger(value) && (value as number) > 0,
  pageToken: isString,
  background: isBoolean,
  approvalPolicy: oneOf(APPROVAL_POLICIES),
  workingDirectory: isString,
  baseInstructions: isString,
};

/** `raw` as codexArgs parses it when every key is a field with a plain value; otherwise null. */
export function plainCodexArgs(raw: unknown): CodexArgs | null {
  if (!isRecord(raw)) return null;
  const args: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const check = Object.hasOwn(FIELDS, key) ? FIELDS[key] : undefined;
    if (!check?.(value)) return null;
    args[key] = key === "config" ? { ...(value as object) } : Array.isArray(value) ? [...value] : value;
  }
  return args as CodexArgs;
}
