/**
 * `notify = ["prog", "arg", …]` (config.toml): a program run when something happens in a thread,
 * with the configured arguments plus ONE more, a JSON object describing it. Codex's one event is
 * `agent-turn-complete` (after each turn, cli-parity.md Part 1 §8); tscodex adds, when
 * `notify_events` lists them, `agent-turn-start` (a turn began) and `approval-requested` (a
 * command or patch waits for an answer).
 *
 * The program is fire and forget: spawned detached, stdin/stdout/stderr to /dev/null, in the
 * thread's cwd; the turn never waits for it. It is bounded: killed after NOTIFY_TIMEOUT_MS, and at
 * most NOTIFY_MAX_RUNNING run at once (an event beyond that is dropped). A failure (the program
 * cannot start, or events dropped) is reported once per process.
 */
import { spawn } from "node:child_process";
import type { NotifyConfig, NotifyEvent } from "../config/notify-config.js";
import type { Event } from "../protocol/events.js";

export const NOTIFY_TIMEOUT_MS = 30_000;
export const NOTIFY_MAX_RUNNING = 8;

/** Where a thread's notifications come from. */
export interface NotifySource {
  threadId: string;
  cwd: string;
  /** Codex's `client` (e.g. `codex_exec`); left out when unknown. */
  client?: string;
  env?: NodeJS.ProcessEnv;
  /** Told about a failure (once per process). */
  warn(message: string): void;
}

let running = 0;
let warned = false;

/**
 * A thread listener that runs `config.argv` for the configured events. Codex's key order:
 * type, thread-id, turn-id, cwd, client, input-messages, last-assistant-message.
 */
export function notifier(config: NotifyConfig, source: NotifySource): (event: Event) => void {
  const wanted = new Set(config.events);
  let inputMessages: string[] = [];
  const base = (type: NotifyEvent, turnId: string) => ({
    type,
    "thread-id": source.threadId,
    "turn-id": turnId,
    cwd: source.cwd,
    ...(source.client ? { client: source.client } : {}),
  });
  return (event) => {
    switch (event.type) {
      case "turn_started":
        inputMessages = [];
        if (wanted.has("agent-turn-start")) run(config.argv, base("agent-turn-start", event.turn_id), source);
        return;
      case "user_message":
        inputMessages.push(event.message);
        return;
      case "exec_approval_request":
      case "apply_patch_approval_request":
        if (!wanted.has("approval-requested") || event.agent_id) return;
        run(
          config.argv,
          {
            ...base("approval-requested", event.turn_id),
            "call-id": event.call_id,
            kind: event.type === "exec_approval_request" ? "command" : "patch",
            ...(event.type === "exec_approval_request" ? { command: event.command } : {}),
            reason: event.reason,
          },
          source,
        );
        return;
      case "turn_complete":
        if (!wanted.has("agent-turn-complete")) return;
        run(
          config.argv,
          {
            ...base("agent-turn-complete", event.turn_id),
            "input-messages": inputMessages,
            ...(event.last_agent_message !== null
              ? { "last-assistant-message": event.last_agent_message }
              : {}),
          },
          source,
        );
        return;
    }
  };
}

function run(argv: string[], payload: object, source: NotifySource): void {
  const [program, ...args] = argv;
  if (!program) return;
  if (running >= NOTIFY_MAX_RUNNING) {
    warnOnce(source, `notify: ${NOTIFY_MAX_RUNNING} notify programs still running; later events dropped`);
    return;
  }
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(program, [...args, JSON.stringify(payload)], {
      cwd: source.cwd,
      env: source.env ?? process.env,
      stdio: "ignore",
      detached: true,
    });
  } catch (error) {
    warnOnce(source, `notify: cannot run ${program}: ${(error as Error).message}`);
    return;
  }
  running++;
  // Neither the child nor its timer keeps this process alive (exec exits after its turn).
  child.unref();
  const timer = setTimeout(() => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }
  }, NOTIFY_TIMEOUT_MS);
  timer.unref();
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    running--;
    clearTimeout(timer);
  };
  child.on("error", (error) => {
    finish();
    warnOnce(source, `notify: cannot run ${program}: ${error.message}`);
  });
  child.on("exit", finish);
}

function warnOnce(source: NotifySource, message: string): void {
  if (warned) return;
  warned = true;
  source.warn(message);
}
