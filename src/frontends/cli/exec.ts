/**
 * `tscodex exec`: one prompt, run to the end without a human.
 * Flow: options → config → checks (git repo, provider key) → thread (new, or resumed from its
 * rollout) → render events (human on stderr, or JSONL on stdout) → final message on stdout →
 * rollout flushed → exit code.
 */
import { writeFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { type Config, ConfigError, loadConfig } from "../../config/load.js";
import { ConfigOverrideError, parseOverride } from "../../config/overrides.js";
import { type ConfiguredPermissions, configuredPermissions } from "../../config/permission-profiles.js";
import { approvalDefault, permissionsViolation } from "../../config/requirements.js";
import { warnConfigOnce } from "../../config/warnings.js";
import { findGitRoot } from "../../prompt/agents-md.js";
import { imageFileToDataUrl } from "../../prompt/images.js";
import type { ReviewDecision } from "../../protocol/events.js";
import type { Permissions } from "../../protocol/permissions.js";
import { legacyProjection } from "../../protocol/permissions-legacy.js";
import type { ApprovalPolicy, SandboxMode } from "../../protocol/policy.js";
import type { Thread } from "../../session/thread.js";
import { ThreadManager } from "../../session/thread-manager.js";
import { openThreadStore, type ThreadStore } from "../../store/index.js";
import { currentDirectory, outputFileProblem, workingDirectoryProblem } from "../../util/directory.js";
import { errorMessage } from "../../util/errors.js";
import { visibleLine, visibleOnTerminal, visibleText } from "../common/terminal-text.js";
import { type QuestionResponders, questionRouter } from "../common/turn-driver.js";
import {
  type ExecCliOptions,
  type ForkTarget,
  firstOptions,
  flagOverrides,
  type ResumeTarget,
  readOutputSchema,
  readPrompt,
  wantsColor,
} from "./exec-common.js";
import { HumanRenderer } from "./human-output.js";

export type { ExecCliOptions, ForkTarget, ResumeTarget } from "./exec-common.js";
export { readPrompt } from "./exec-common.js";

/** A turn whose prompt and output schema exec does not take from the user (`review`). */
export interface ExecTask {
  /** The prompt sent; `display` is what the human output shows for it. */
  prompt: string;
  display: string;
  outputSchema: Record<string, unknown>;
  /** The final message as human-readable text (stdout without --json). */
  render(finalResponse: string): string;
  /** Review mode is read-only whatever the flags say. */
  sandboxMode: SandboxMode;
}

export async function runExec(
  promptArg: string | undefined,
  options: ExecCliOptions,
  resume?: ResumeTarget | ForkTarget,
  task?: ExecTask,
): Promise<number> {
  const json = Boolean(options.json || options.experimentalJson);
  // A problem can quote a config file, a stored thread or a server's message: controls shown.
  const fail = (message: string) => {
    process.stderr.write(`tscodex: ${visibleText(message)}\n`);
    return 1;
  };
  // Loaded only then: a local exec never reads the app-server client.
  if (options.remote !== undefined && !task) {
    if (resume && "fork" in resume) return fail("exec fork does not take --remote yet");
    return (await import("./exec-remote.js")).runRemoteExec(promptArg, options, { kind: "turn", resume });
  }
  if (options.remoteAuthTokenEnv !== undefined)
    return fail("--remote-auth-token-env needs --remote ws://HOST:PORT");
  const processCwd = currentDirectory();
  if (processCwd === undefined && (options.cd === undefined || !isAbsolute(options.cd))) {
    return fail("the working directory was deleted; cd into an existing directory, or pass -C DIR");
  }
  const cwd = resolve(processCwd ?? "/", options.cd ?? ".");
  // Before anything runs: a turn in a directory that is not there would run (and exit 0) anyway.
  const cwdProblem = await workingDirectoryProblem(
    cwd,
    options.cd !== undefined ? "-C" : "working directory",
  );
  if (cwdProblem) return fail(cwdProblem);
  const lastMessagePath = options.outputLastMessage
    ? resolve(processCwd ?? "/", options.outputLastMessage)
    : undefined;
  const outputProblem = lastMessagePath && (await outputFileProblem(lastMessagePath, "-o"));
  if (outputProblem) return fail(outputProblem);
  const bypass = options.dangerouslyBypassApprovalsAndSandbox === true;
  // A sandbox mode chosen for this run wins over default_permissions (reference §6).
  const runSandboxMode: SandboxMode | undefined =
    task?.sandboxMode ??
    (bypass ? "danger-full-access" : undefined) ??
    options.sandbox ??
    (options.fullAuto || options.approveForMe ? "workspace-write" : undefined);
  let config: Config;
  let configured: ConfiguredPermissions;
  const addedDirs = (options.addDir ?? []).map((dir) => resolve(cwd, dir));
  try {
    config = await loadConfig({
      ...(options.profile ? { profile: options.profile } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.oss ? { oss: true } : {}),
      ...(options.localProvider ? { localProvider: options.localProvider } : {}),
      ...(options.strictConfig ? { strictConfig: true } : {}),
      ...(options.ignoreUserConfig ? { ignoreUserConfig: true } : {}),
      ...(options.ignoreRules ? { ignoreRules: true } : {}),
      cwd,
      ...(options.trust ? { trust: true } : {}),
      overrides: [...options.config.map(parseOverride), ...flagOverrides(options)],
      ...(runSandboxMode ? { sandboxMode: runSandboxMode } : {}),
    });
    // [permissions.*] with nothing choosing among them is refused here, before any request.
    // --add-dir: more writable roots, for a sandbox mode and a profile alike.
    config.sandboxWorkspaceWrite.writableRoots.push(...addedDirs);
    configured = withAddedDirs(configuredPermissions(config), addedDirs);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ConfigOverrideError) return fail(error.message);
    throw error;
  }
  warnConfigOnce(config, process.stderr, visibleLine);
  if (configured.note) process.stderr.write(`${visibleLine(`note: ${configured.note}`)}\n`);
  if (!options.skipGitRepoCheck && !(await findGitRoot(cwd))) {
    return fail(
      `${cwd} is not inside a git repository; run it in a repo, or pass --skip-git-repo-check to run here anyway (a .git another user owns, or one above a world-writable directory such as /tmp, does not count)`,
    );
  }
  if (config.providerProblem) return fail(config.providerProblem);

  const prompt = task ? task.prompt : await readPrompt(promptArg);
  // `exec resume "fix it"` reads "fix it" as a thread id: say how to continue the last thread.
  const resumeId = resume && "id" in resume ? resume.id : undefined;
  const lastHint = (id: string) =>
    `; to continue the most recent thread: tscodex exec resume --last ${JSON.stringify(id)}`;
  if (prompt === null && resumeId !== undefined)
    return fail(`exec resume ${resumeId}: no prompt${lastHint(resumeId)}`);
  if (prompt === null) return fail("no prompt: pass it as an argument or pipe it on stdin");
  if (prompt.trim() === "") return fail("empty prompt: say what the agent should do");
  let images: string[];
  try {
    images = await Promise.all(options.image.map((path) => imageFileToDataUrl(resolve(cwd, path))));
  } catch (error) {
    return fail((error as Error).message);
  }

  let outputSchema: Record<string, unknown> | undefined;
  try {
    outputSchema =
      task?.outputSchema ??
      (options.outputSchema ? await readOutputSchema(resolve(options.outputSchema)) : undefined);
  } catch (error) {
    return fail(errorMessage(error));
  }

  // One value from here on: a profile (default_permissions) or the run's or config's sandbox mode.
  const permissions = configured.permissions;
  // No human can answer in exec: unless asked otherwise, never ask (as Codex's exec).
  const approvalPolicy: ApprovalPolicy = bypass
    ? "never"
    : (options.askForApproval ??
      (options.approveForMe ? "on-request" : undefined) ??
      (options.fullAuto
        ? "never"
        : (config.approvalPolicySetting ?? approvalDefault(config.requirements, "never"))));
  const aboveCeiling = permissionsViolation(config.requirements, permissions, approvalPolicy);
  if (aboveCeiling) return fail(aboveCeiling);
  if (options.dangerouslyBypassHookTrust) {
    config.bypassHookTrust = true;
    process.stderr.write(
      "warning: `--dangerously-bypass-hook-trust` is enabled. Enabled hooks may run without review for this invocation.\n",
    );
  }
  const metadata = {
    ...(options.threadSource ? { thread_source: options.threadSource } : {}),
    ...(options.cyberAccessProgram ? { cyber_access_program: options.cyberAccessProgram } : {}),
  };
  // With `[otel]`: installed before the thread starts, flushed (bounded) before exec exits.
  // Loaded only with `[otel]`: without it no telemetry code is read at all.
  const telemetry = config.otel
    ? await (await import("../common/telemetry.js")).startTelemetry(config, "exec")
    : null;
  let store: ThreadStore | undefined;
  try {
    store = options.ephemeral ? undefined : await openThreadStore(config);
  } catch (error) {
    return fail(errorMessage(error));
  }
  const manager = new ThreadManager({
    config,
    ...(store ? { store } : {}),
    source: "exec",
    originator: process.env.CODEX_INTERNAL_ORIGINATOR_OVERRIDE || "tscodex_exec",
    ...(options.ephemeral ? { persist: false } : {}),
    ...(Object.keys(metadata).length ? { metadata } : {}),
  });
  let thread: Thread;
  try {
    // --approve-for-me: questions go to the reviewer model (hooks first), as Codex's flag does.
    const open = {
      cwd,
      permissions,
      approvalPolicy,
      ...(options.approveForMe ? { approvalsReviewer: "auto_review" as const } : {}),
    };
    thread = !resume
      ? await manager.start(open)
      : "fork" in resume
        ? await manager.fork(resume.fork, {}, open)
        : await manager.resume("id" in resume ? resume.id : resume, open);
  } catch (error) {
    const message = errorMessage(error);
    return fail(
      resumeId !== undefined && /no stored thread/.test(message)
        ? `${message}${lastHint(resumeId)}`
        : message,
    );
  }

  if (!json && process.stderr.isTTY) {
    // Said now, before the status line is drawn: said later, it would land inside that line.
    const { containmentStatus, warnUncontained } = await import("../../policy/sandbox/index.js");
    const containment = await containmentStatus();
    if (!containment.available) warnUncontained(containment.reason);
  }
  const renderer = json
    ? // Only --json needs the JSONL writer (issue 26: what a plain exec loads is its peak RSS).
      new (await import("./exec-json.js")).ExecJsonWriter(process.stdout, process.stderr, {
        approvalItems: config.execJsonApprovalItems,
      })
    : new HumanRenderer(process.stderr, {
        color: wantsColor(options.color),
        statusLine: Boolean(process.stderr.isTTY),
      });
  renderer.start({
    threadId: thread.id,
    model: config.model,
    provider: config.provider.id,
    cwd,
    approvalPolicy,
    sandboxMode: sandboxLabel(permissions),
    prompt: task?.display ?? prompt,
  });
  // Nothing here shows output as it streams: commands need not copy it into deltas.
  const noDeltas = { outputDeltas: false };
  thread.subscribe((event) => renderer.event(event), noDeltas);
  // Nobody can answer here: every question gets the declared outcome at once (never a wait).
  const outcome: ReviewDecision = config.execApprovalOutcome === "approve" ? "approved" : "denied";
  // Questions for the user: Codex's exec cannot ask, and says so; `user_input.exec_answer =
  // "first"` answers each question with its first suggested option instead.
  const responders: QuestionResponders = {
    approval: (event) => {
      renderer.approval(event, outcome);
      return outcome;
    },
    userInput: (event) => (config.execUserInput === "first" ? firstOptions(event.questions) : null),
    // An MCP server's elicitation: nobody can fill it in here; declined at once, as Codex's exec does.
    elicitation: () => ({ action: "decline" }),
  };
  thread.subscribe(questionRouter(thread, responders), noDeltas);

  // SIGINT (Ctrl-C) and SIGTERM (the SDK's AbortSignal) stop the turn, which kills the running
  // command's process tree; the manager then ends every exec session. A second signal exits now.
  let stoppedBy: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stoppedBy) process.exit(signal === "SIGTERM" ? 143 : 130);
    stoppedBy = signal;
    thread.interrupt();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // stdout closed by the reader (`tscodex exec --json ... | head -1`): stop the turn, which kills
  // its commands, and end quietly; later writes fail the same way and are dropped. Left in place
  // to the end of the process: the last flush happens after this function returns.
  let stdoutClosed = false;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") {
      process.stderr.write(`tscodex: stdout: ${visibleText(error.message)}\n`);
    }
    if (stdoutClosed) return;
    stdoutClosed = true;
    thread.interrupt();
  });
  try {
    const result = await thread.run({ text: prompt, images }, outputSchema ? { outputSchema } : undefined);
    renderer.finish(result);
    if (lastMessagePath) await writeFile(lastMessagePath, result.finalResponse ?? "");
    if (!json && result.finalResponse) {
      const text = task ? task.render(result.finalResponse) : result.finalResponse;
      // On a terminal the answer is read, not kept: its controls are shown (terminal-text.ts).
      // Redirected (`> answer.txt`, a pipe) it is the model's text exactly.
      process.stdout.write(`${visibleOnTerminal(text, process.stdout, { tabs: "keep" })}\n`);
    }
    // SDK errors quote stderr: the failure goes there too, whatever the output mode.
    if (result.status === "failed" && json)
      process.stderr.write(`tscodex: ${visibleText(result.error ?? "turn failed")}\n`);
    if (stoppedBy === "SIGTERM") return 143;
    // Every write so far reached the reader, or stdout is closed (its error may not have been
    // delivered yet: the callback of an empty write comes after the writes before it).
    const flushed = await new Promise<boolean>((resolve) =>
      process.stdout.write("", (error) => resolve(!error)),
    );
    // As a process killed by SIGPIPE would report it (128 + 13).
    if (stdoutClosed || !flushed) return 141;
    return result.status === "completed" ? 0 : 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    // Shuts the thread down and writes the rest of its rollout before the process exits.
    await manager.close();
    await telemetry?.shutdown();
  }
}

/** The header's sandbox: the mode, or the profile and the mode it reads as. */
function sandboxLabel(permissions: Permissions): string {
  const { mode } = legacyProjection(permissions);
  return permissions.profile ? `${permissions.profile.id} (permission profile; ${mode})` : mode;
}

/** A profile with `--add-dir`'s directories as write rules (a sandbox mode has them from its extent). */
function withAddedDirs(configured: ConfiguredPermissions, dirs: readonly string[]): ConfiguredPermissions {
  const { permissions } = configured;
  if (dirs.length === 0 || permissions.kind !== "sandboxed" || permissions.profile === null)
    return configured;
  const rules = [
    ...permissions.filesystem.rules,
    ...dirs.map((path) => ({ path, access: "write" as const })),
  ];
  return {
    ...configured,
    permissions: {
      ...permissions,
      legacyMode: "workspace-write",
      filesystem: { ...permissions.filesystem, rules },
    },
  };
}
