/**
 * What the `codex` tool does with checked arguments: open or continue the thread, run one turn
 * (or start it in the background), answer. No zod here: the stdio server runs a plain first
 * call (stdio-quick-call.ts) before zod and the MCP SDK are loaded; codex-tool.ts is the tool's
 * definition with its zod schema.
 */
import { readFile } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { projectConfigPaths } from "../../config/layers.js";
import { type Config, tscodexHome } from "../../config/load.js";
import { settingsViolation } from "../../config/requirements.js";
import { warnConfigOnce } from "../../config/warnings.js";
import type { Thread, TurnOverrides } from "../../session/thread.js";
import type { OpenThreadOptions } from "../../session/thread-manager.js";
import { workingDirectoryProblem } from "../../util/directory.js";
import { errorMessage } from "../../util/errors.js";
import { configViolation } from "../common/ceiling.js";
import { visibleLine } from "../common/terminal-text.js";
import type { CodexArgs } from "./codex-schema.js";
import { pagedResult, plainError, type ServerToolResult, threadResult } from "./results.js";
import { runTurn } from "./run-turn.js";
import type { ServerToolContext } from "./server-tool.js";
import { loadSettingsConfig } from "./settings-config.js";
import { findThread, isThreadId, sessionNotFound, setAlias } from "./thread-lookup.js";

/** The prefix of Codex's answer to arguments it cannot parse. */
export const PARSE_PREFIX = "Failed to parse configuration for Codex tool: ";

/** Run the `codex` tool on arguments its schema accepted. */
export async function handleCodex(args: CodexArgs, context: ServerToolContext): Promise<ServerToolResult> {
  if (args.pageToken !== undefined) return nextPage(args.pageToken, args.sessionId, context);
  if (args.prompt === undefined) return plainError(`${PARSE_PREFIX}missing field \`prompt\``);
  const given = args.cwd ?? args.workingDirectory;
  // A client's relative path would depend on where the server happened to start: refuse it.
  const cwdProblem = given === undefined ? undefined : await workingDirectoryProblem(given, "cwd");
  if (cwdProblem) return plainError(cwdProblem);
  const cwd = resolve(given ?? process.cwd());

  let images: string[];
  try {
    images = await loadImages(args.image, cwd);
  } catch (error) {
    return plainError(errorMessage(error));
  }
  const overrides = turnOverrides(args);
  const thread = await openThread(args, cwd, overrides, context);
  if (!("id" in thread)) return thread;
  const refused = settingsViolation(context.runtime.config.requirements, overrides, thread.effectiveSettings);
  if (refused) return plainError(refused);

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
  context.runtime.tasks.start(thread.id, () => runTurn(thread, request, detached));
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
  const { runtime } = context;
  const { threads } = runtime;
  if (args.sessionId && !args.resetSession) {
    const found = await findThread(runtime, args.sessionId);
    if (found && !("error" in found)) return found;
    // A thread id that cannot be opened (another process has it) must not become a new thread.
    if (found && isThreadId(args.sessionId)) return plainError(found.error);
    // A name the client chose (not a thread id) starts a thread the name then stands for.
    if (!found && isThreadId(args.sessionId)) return sessionNotFound(args.sessionId);
  }
  let config: Config | undefined;
  try {
    config = await callConfig(args, cwd, context);
  } catch (error) {
    return plainError(`Failed to load configuration for Codex tool: ${errorMessage(error)}`);
  }
  if (config?.providerProblem) return plainError(config.providerProblem);
  // Before the thread exists (checked again with the turn, for a thread found above).
  const refused = configViolation(config ?? runtime.config, overrides);
  if (refused) return plainError(refused);
  if (args.sessionId && args.resetSession) {
    const old = await findThread(runtime, args.sessionId);
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
    // A client that answers elicitations answers for a person: a reviewer's denial may go to it.
    ...(context.elicit ? { personAttached: true } : {}),
  };
  try {
    // A reset thread keeps its id when it had one, so the client's handle stays valid.
    const reuse =
      args.resetSession && args.sessionId && isThreadId(args.sessionId) ? args.sessionId : undefined;
    const thread = await threads.start(options, ...(reuse ? [reuse] : []));
    if (args.sessionId) setAlias(runtime, args.sessionId, thread.id);
    return thread;
  } catch (error) {
    return plainError(`Failed to start a Codex thread: ${errorMessage(error)}`);
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

/**
 * The call's own configuration, when it has `config`, `profile` or `compact-prompt`, or when
 * its cwd has project `.codex/config.toml` files (applied only if the user trusts the project;
 * else one warning on stderr); otherwise the server's.
 */
async function callConfig(
  args: CodexArgs,
  cwd: string,
  context: ServerToolContext,
): Promise<Config | undefined> {
  const own = {
    ...(args.config ?? {}),
    ...(args["compact-prompt"] ? { compact_prompt: args["compact-prompt"] } : {}),
    ...(args["include-plan-tool"] === false ? { "tools.update_plan": false } : {}),
  };
  const { settings } = context.runtime;
  const project = await projectConfigPaths(cwd, resolve(settings.home ?? tscodexHome()));
  if (Object.keys(own).length === 0 && !args.profile && project.length === 0) return undefined;
  const config = await loadSettingsConfig(settings, own, args.profile ?? settings.profile, cwd);
  warnConfigOnce(config, process.stderr, visibleLine);
  return config;
}

function nextPage(token: string, threadId: string | undefined, context: ServerToolContext): ServerToolResult {
  const page = context.runtime.pages.readPage(token);
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
