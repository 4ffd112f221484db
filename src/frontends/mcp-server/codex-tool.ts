/**
 * The `codex` tool: start a thread (or continue one named by `sessionId`) and run one turn.
 * Arguments are Codex's (kebab-case) plus the CLI wrappers' spellings; a call's `config`,
 * `profile` and `compact-prompt` give its thread its own configuration. Defaults: the server's
 * config (read-only sandbox, on-request approvals unless config.toml says otherwise).
 */
import { readFile } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { z } from "zod";
import type { Config } from "../../config/load.js";
import { approvalPolicySchema, sandboxModeSchema } from "../../protocol/policy.js";
import type { Thread, TurnOverrides } from "../../session/thread.js";
import type { OpenThreadOptions } from "../../session/thread-manager.js";
import { errorMessage } from "../../util/errors.js";
import { startBackgroundTask } from "./background.js";
import {
  CODEX_OUTPUT_SCHEMA,
  findThread,
  isThreadId,
  plainError,
  sessionNotFound,
  setAlias,
} from "./codex-reply-tool.js";
import { codexInputSchema } from "./codex-schema.js";
import { readPage } from "./pagination.js";
import { pagedResult, runTurn, threadResult } from "./run-turn.js";
import {
  loadSettingsConfig,
  type ServerTool,
  type ServerToolContext,
  type ServerToolResult,
} from "./server-tool.js";

const PARSE_PREFIX = "Failed to parse configuration for Codex tool: ";

const codexArgs = z.looseObject({
  prompt: z.string().optional(),
  "approval-policy": approvalPolicySchema.optional(),
  approvalPolicy: approvalPolicySchema.optional(),
  sandbox: sandboxModeSchema.optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  cwd: z.string().optional(),
  workingDirectory: z.string().optional(),
  model: z.string().optional(),
  profile: z.string().optional(),
  "base-instructions": z.string().optional(),
  baseInstructions: z.string().optional(),
  "developer-instructions": z.string().optional(),
  "compact-prompt": z.string().optional(),
  "include-plan-tool": z.boolean().optional(),
  sessionId: z.string().optional(),
  resetSession: z.boolean().optional(),
  image: z.union([z.string(), z.array(z.string())]).optional(),
  pageSize: z.number().int().positive().optional(),
  pageToken: z.string().optional(),
  background: z.boolean().optional(),
});
type CodexArgs = z.infer<typeof codexArgs>;

/** The `codex` tool. */
export function codexTool(): ServerTool {
  return {
    name: "codex",
    title: "Codex",
    description:
      "Run a Codex agent session: give it a task (prompt) and it works in the workspace (cwd) with " +
      "shell commands and patches, under the sandbox and approval policy given, then answers. " +
      "The result carries a threadId; continue the conversation with codex-reply.",
    inputSchema: codexInputSchema(),
    outputSchema: CODEX_OUTPUT_SCHEMA,
    handle: (args, context) => handleCodex(args, context),
  };
}

async function handleCodex(
  raw: Record<string, unknown>,
  context: ServerToolContext,
): Promise<ServerToolResult> {
  const parsed = codexArgs.safeParse(raw);
  if (!parsed.success) return plainError(PARSE_PREFIX + describeIssue(parsed.error, raw));
  const args = parsed.data;
  if (args.pageToken !== undefined) return nextPage(args.pageToken, args.sessionId);
  if (args.prompt === undefined) return plainError(`${PARSE_PREFIX}missing field \`prompt\``);
  const cwd = resolve(args.cwd ?? args.workingDirectory ?? process.cwd());

  let images: string[];
  try {
    images = await loadImages(args.image, cwd);
  } catch (error) {
    return plainError(errorMessage(error));
  }
  const overrides = turnOverrides(args);
  const thread = await openThread(args, cwd, overrides, context);
  if (!("id" in thread)) return thread;

  const request = {
    input: { text: args.prompt, ...(images.length ? { images } : {}) },
    ...(Object.keys(overrides).length ? { overrides } : {}),
    ...(args.pageSize ? { pageSize: args.pageSize } : {}),
  };
  if (!args.background) return runTurn(thread, request, context);
  // The call returns now; the turn goes on without the request (no progress, no cancellation).
  const detached: ServerToolContext = {
    ...context,
    progress: () => {},
    signal: new AbortController().signal,
  };
  startBackgroundTask(thread.id, () => runTurn(thread, request, detached));
  return threadResult(
    thread.id,
    `Started in the background on thread ${thread.id}. Poll the \`status\` tool with this threadId for the result; \`cancel\` stops it.`,
  );
}

/** The thread this call runs on: `sessionId`'s (unless resetSession), else a new one. */
async function openThread(
  args: CodexArgs,
  cwd: string,
  overrides: PolicyOverrides,
  context: ServerToolContext,
): Promise<Thread | ServerToolResult> {
  const { threads } = context;
  if (args.sessionId && !args.resetSession) {
    const found = await findThread(threads, args.sessionId);
    if (found && !("error" in found)) return found;
    // A name the client chose (not a thread id) starts a thread the name then stands for.
    if (!found && isThreadId(args.sessionId)) return sessionNotFound(args.sessionId);
  }
  let config: Config | undefined;
  try {
    config = await callConfig(args, context);
  } catch (error) {
    return plainError(`Failed to load configuration for Codex tool: ${(error as Error).message}`);
  }
  if (config?.providerProblem) return plainError(config.providerProblem);
  if (args.sessionId && args.resetSession) {
    const old = await findThread(threads, args.sessionId);
    if (old && !("error" in old)) await threads.delete(old.id);
  }
  const options: OpenThreadOptions = {
    cwd,
    ...overrides,
    ...(args.model ? { model: args.model } : {}),
    ...((args["base-instructions"] ?? args.baseInstructions)
      ? { baseInstructions: args["base-instructions"] ?? args.baseInstructions }
      : {}),
    ...(args["developer-instructions"] ? { developerInstructions: args["developer-instructions"] } : {}),
    ...(config ? { config } : {}),
  };
  try {
    // A reset thread keeps its id when it had one, so the client's handle stays valid.
    const reuse =
      args.resetSession && args.sessionId && isThreadId(args.sessionId) ? args.sessionId : undefined;
    const thread = await threads.start(options, ...(reuse ? [reuse] : []));
    if (args.sessionId) setAlias(args.sessionId, thread.id);
    return thread;
  } catch (error) {
    return plainError(`Failed to start a Codex thread: ${(error as Error).message}`);
  }
}

function turnOverrides(args: CodexArgs): PolicyOverrides {
  const approvalPolicy = args["approval-policy"] ?? args.approvalPolicy;
  return {
    ...(approvalPolicy ? { approvalPolicy } : {}),
    ...(args.sandbox ? { sandboxMode: args.sandbox } : {}),
  };
}

/** The policies a call may choose (they apply to the thread it opens and to its turn). */
type PolicyOverrides = Pick<TurnOverrides, "approvalPolicy" | "sandboxMode">;

/** The call's own configuration, when it has `config`, `profile` or `compact-prompt`; else the server's. */
async function callConfig(args: CodexArgs, context: ServerToolContext): Promise<Config | undefined> {
  const own = {
    ...(args.config ?? {}),
    ...(args["compact-prompt"] ? { compact_prompt: args["compact-prompt"] } : {}),
    ...(args["include-plan-tool"] === false ? { "tools.update_plan": false } : {}),
  };
  if (Object.keys(own).length === 0 && !args.profile) return undefined;
  return loadSettingsConfig(context.settings, own, args.profile ?? context.settings.profile);
}

function nextPage(token: string, threadId: string | undefined): ServerToolResult {
  const page = readPage(token);
  if ("error" in page) return plainError(page.error);
  return pagedResult(threadId ?? "", page);
}

const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** Image paths (relative to cwd) → data URLs; data: URLs pass through. Throws a clear message. */
async function loadImages(image: string | string[] | undefined, cwd: string): Promise<string[]> {
  const list = image === undefined ? [] : Array.isArray(image) ? image : [image];
  return Promise.all(
    list.map(async (entry) => {
      if (entry.startsWith("data:")) return entry;
      const path = resolve(cwd, entry);
      const mime = IMAGE_TYPES[extname(path).toLowerCase()];
      if (!mime) throw new Error(`image ${entry}: unsupported type (use png, jpeg, gif or webp)`);
      const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
        throw new Error(`image ${entry}: cannot read ${path}: ${error.code ?? error.message}`);
      });
      return `data:${mime};base64,${bytes.toString("base64")}`;
    }),
  );
}

/** Codex's wording for the first problem: a missing field, an unknown enum variant, a wrong type. */
function describeIssue(error: z.ZodError, raw: Record<string, unknown>): string {
  const issue = error.issues[0];
  if (!issue) return "invalid arguments";
  const field = issue.path.map(String).join(".");
  const value = issue.path.length === 1 ? raw[String(issue.path[0])] : undefined;
  if (issue.code === "invalid_value") {
    const expected = issue.values.map((v) => `\`${String(v)}\``).join(", ");
    return `unknown variant \`${String(value)}\`, expected one of ${expected}`;
  }
  if (issue.code === "invalid_type") return `invalid type for \`${field}\`: expected ${issue.expected}`;
  return `\`${field}\`: ${issue.message}`;
}
