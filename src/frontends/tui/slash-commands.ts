/**
 * Codex's slash commands, each done with app-server requests: a new or resumed thread (or a new
 * one on a cleared terminal, whose SessionStart hooks hear source "clear"), the
 * model (and reasoning effort) and approval settings (applied from the next turn on), the status, the turn's diff,
 * compaction, a review, the MCP servers, an AGENTS.md written by a turn, and quitting. Without
 * an argument /model, /approvals and /resume open a picker (the server's `model/list`, the four
 * policies, the stored threads of `thread/list`).
 */
import type { ClientMethod, ResultOf } from "../app-server/protocol/client-requests.js";
import { openModelPicker, setModel } from "./model-picker.js";
import { Picker, type PickerItem } from "./picker.js";
import { METHOD_NOT_FOUND, RpcCallError } from "./rpc-client.js";
import type { Transcript } from "./transcript.js";

type Params = Record<string, unknown>;

/** What the commands need of the app (app.ts implements it). */
export interface SlashHost {
  readonly transcript: Transcript;
  thread: {
    id: string;
    model: string;
    effort: string | null;
    approvalPolicy: string;
    sandbox: string;
  } | null;
  readonly options: {
    settings: {
      model?: string | undefined;
      effort?: string | undefined;
      approvalPolicy?: string | undefined;
    };
  };
  /** The open thread's cwd on the server. */
  readonly cwd: string;
  /** The directory whose threads the resume picker lists; undefined: every directory's. */
  readonly listCwd: string | undefined;
  rpc(method: string, params: Params): Promise<Params>;
  /** A request whose reply is read as the protocol's result for `method` (wire.ts). */
  call<M extends ClientMethod>(method: M, params: Params): Promise<ResultOf<M>>;
  openPicker(picker: Picker): void;
  /** thread/start; `clear` also wipes the terminal and tells the server the thread replaces a cleared one. */
  newThread(options?: { clear?: boolean }): Promise<void>;
  resumeThread(which: string): Promise<void>;
  submit(text: string): Promise<void>;
  quit(code?: number): void;
}

/** The prompt Codex's /init sends: the agent writes AGENTS.md itself, with its tools. */
const INIT_PROMPT = `Generate a file named AGENTS.md that serves as a contributor guide for this repository.
Look at the repository's layout, build and test commands, coding style and commit conventions, and
write concise sections about them (about 200-400 words, Markdown headings). Write the file with your
tools; if an AGENTS.md already exists, improve it instead of starting over.`;

const DIFF_SCRIPT =
  "git diff --no-color; git ls-files --others --exclude-standard -z | xargs -0 -r -n1 git diff --no-color --no-index /dev/null";

export const SLASH_COMMANDS: Record<string, string> = {
  "/new": "start a new thread",
  "/clear": "clear the terminal and start a new thread",
  "/resume": "pick a stored thread to resume (or /resume ID)",
  "/model": "pick the model and its reasoning effort (or /model NAME)",
  "/approvals": "pick the approval policy (or /approvals untrusted|on-failure|on-request|never)",
  "/status": "thread, model, sandbox and approval settings",
  "/diff": "the git diff of the working tree",
  "/compact": "summarize the conversation to free context",
  "/review": "review the current changes",
  "/mcp": "list the MCP servers and their tools",
  "/init": "write an AGENTS.md for this repository",
  "/quit": "leave",
};

export async function runSlashCommand(app: SlashHost, line: string): Promise<void> {
  const [name = "", ...rest] = line.trim().split(/\s+/);
  const arg = rest.join(" ");
  const t = app.transcript;
  const threadId = app.thread?.id;
  try {
    switch (name) {
      case "/quit":
      case "/exit":
        app.quit(0);
        return;
      case "/new":
        await app.newThread();
        t.notice("new thread started");
        return;
      case "/clear":
        // As Codex: not while a turn runs (its output would land on the cleared screen).
        if (t.runningTurnId) {
          t.notice("/clear is disabled while a turn runs: wait for it or press Esc", "warn");
          return;
        }
        await app.newThread({ clear: true });
        return;
      case "/resume":
        if (arg) await app.resumeThread(arg);
        else await openResumePicker(app);
        return;
      case "/status": {
        const info = app.thread;
        t.notice(
          info
            ? `thread ${info.id}\nmodel ${info.model}\nreasoning effort ${info.effort ?? "the model's default"}\nsandbox ${info.sandbox}\napproval ${info.approvalPolicy}\ncwd ${app.cwd}`
            : "no thread open",
        );
        return;
      }
      case "/model":
      case "/approvals": {
        if (!app.thread) {
          t.notice("no thread open");
          return;
        }
        if (!arg) {
          if (name === "/model") await openModelPicker(app);
          else openApprovalPicker(app);
          return;
        }
        if (name === "/model") setModel(app, arg);
        else setApprovalPolicy(app, arg);
        return;
      }
      case "/diff": {
        const result = await app.rpc("command/exec", {
          // Tracked changes, then each untracked file as an addition (as Codex's /diff).
          command: ["sh", "-c", DIFF_SCRIPT],
          cwd: app.cwd,
        });
        const stdout = String(result.stdout ?? "");
        t.notice(stdout.trim() === "" ? "no changes (git diff is empty)" : stdout.replace(/\n$/, ""));
        return;
      }
      case "/compact":
        if (!threadId) return;
        if (await optionalMethod(app, name, "thread/compact/start", { threadId }))
          t.notice("compacting the conversation…");
        return;
      case "/review":
        if (!threadId) return;
        await optionalMethod(app, name, "review/start", {
          threadId,
          target: { type: "uncommittedChanges" },
          delivery: "inline",
        });
        return;
      case "/mcp": {
        const listed = await app.call("mcpServerStatus/list", {});
        const servers = listed.data ?? [];
        t.notice(
          servers.length === 0
            ? "no MCP servers configured"
            : servers
                .map(
                  (server) =>
                    `${String(server.name)}: ${Object.keys(server.tools ?? {}).join(", ") || "no tools"}`,
                )
                .join("\n"),
        );
        return;
      }
      case "/init":
        await app.submit(INIT_PROMPT);
        return;
      default:
        t.notice(
          `unknown command ${name}. Commands:\n${Object.entries(SLASH_COMMANDS)
            .map(([command, text]) => `${command.padEnd(11)} ${text}`)
            .join("\n")}`,
          "warn",
        );
    }
  } catch (error) {
    t.notice(`${name}: ${(error as Error).message}`, "error");
  }
}

const APPROVAL_POLICIES = ["untrusted", "on-failure", "on-request", "never"];

// Settings ride on the next turn/start; the status line shows them now.
function setApprovalPolicy(app: SlashHost, policy: string): void {
  if (!app.thread) return;
  if (!APPROVAL_POLICIES.includes(policy)) {
    app.transcript.notice(
      `unknown approval policy ${policy}: use one of ${APPROVAL_POLICIES.join(", ")}`,
      "warn",
    );
    return;
  }
  app.options.settings.approvalPolicy = policy;
  app.thread.approvalPolicy = policy;
  app.transcript.notice(`approvals set to ${policy} (from the next turn)`);
}

function openApprovalPicker(app: SlashHost): void {
  const current = app.thread?.approvalPolicy;
  const items = APPROVAL_POLICIES.map((policy) => ({
    label: policy,
    value: policy,
    current: policy === current,
  }));
  app.openPicker(new Picker("Approval policy", items, (policy) => setApprovalPolicy(app, policy)));
}

/**
 * The stored threads (thread/list, most recently updated first) in a picker: preview and age.
 * As Codex, only those started in the cwd (the server filters on `cwd`), unless `resume --all`,
 * which lists every directory's and shows each one's cwd.
 * `orElse` (`tscodex resume` with no thread open): what Esc, or no stored thread, does instead.
 */
export async function openResumePicker(app: SlashHost, orElse?: () => Promise<void>): Promise<void> {
  const cwd = app.listCwd;
  const listed = await app.call("thread/list", { limit: 50, sortKey: "updated_at", cwd });
  const threads = listed.data ?? [];
  const now = Date.now();
  const items: PickerItem[] = threads.flatMap((thread) => {
    if (typeof thread.id !== "string") return [];
    const preview = typeof thread.preview === "string" ? thread.preview.split("\n")[0]?.trim() : "";
    const updated = typeof thread.updatedAt === "number" ? ago(now - thread.updatedAt * 1000) : "";
    const where = cwd === undefined && typeof thread.cwd === "string" ? thread.cwd : "";
    return [
      {
        label: preview || "(no prompt yet)",
        detail: [updated, where].filter(Boolean).join(" · "),
        value: thread.id,
        current: thread.id === app.thread?.id,
      },
    ];
  });
  if (items.length === 0) {
    await orElse?.();
    app.transcript.notice(
      cwd === undefined
        ? "no stored thread to resume"
        : `no stored thread started in ${cwd} to resume (tscodex resume --all lists every directory's)`,
    );
    return;
  }
  app.openPicker(new Picker("Resume a thread", items, (id) => app.resumeThread(id), orElse));
}

/** "just now", "5 minutes ago", "3 hours ago", "2 days ago". */
export function ago(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "just now";
  const [count, unit] =
    minutes < 60
      ? [minutes, "minute"]
      : minutes < 1440
        ? [Math.floor(minutes / 60), "hour"]
        : [Math.floor(minutes / 1440), "day"];
  return `${count} ${unit}${count === 1 ? "" : "s"} ago`;
}

/** Calls a method not every app-server has; false (and a note on screen) when it answers -32601. */
async function optionalMethod(
  app: SlashHost,
  command: string,
  method: string,
  params: Params,
): Promise<boolean> {
  try {
    await app.rpc(method, params);
    return true;
  } catch (error) {
    if (!(error instanceof RpcCallError && error.code === METHOD_NOT_FOUND)) throw error;
    app.transcript.notice(`${command}: this server has no ${method}`, "warn");
    return false;
  }
}
