/**
 * Codex's slash commands, each done with app-server requests: a new or resumed thread, the
 * model and approval settings (applied from the next turn on), the status, the turn's diff,
 * compaction, a review, the MCP servers, an AGENTS.md written by a turn, and quitting.
 */
import { METHOD_NOT_FOUND, RpcCallError } from "./rpc-client.js";
import type { Transcript } from "./transcript.js";

type Params = Record<string, unknown>;

/** What the commands need of the app (app.ts implements it). */
export interface SlashHost {
  readonly transcript: Transcript;
  thread: { id: string; model: string; approvalPolicy: string; sandbox: string } | null;
  readonly options: {
    settings: { cwd: string; model?: string | undefined; approvalPolicy?: string | undefined };
  };
  rpc(method: string, params: Params): Promise<Params>;
  newThread(): Promise<void>;
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
  "/resume": "resume a stored thread: /resume [ID] (default the newest)",
  "/model": "show or set the model: /model NAME",
  "/approvals": "show or set the approval policy: /approvals untrusted|on-failure|on-request|never",
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
      case "/resume":
        await app.resumeThread(arg || "last");
        return;
      case "/status": {
        const info = app.thread;
        t.notice(
          info
            ? `thread ${info.id}\nmodel ${info.model}\nsandbox ${info.sandbox}\napproval ${info.approvalPolicy}\ncwd ${app.options.settings.cwd}`
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
          t.notice(name === "/model" ? await modelChoices(app) : approvalChoices(app.thread.approvalPolicy));
          return;
        }
        // Settings ride on the next turn/start; the status line shows them now.
        if (name === "/model") {
          app.options.settings.model = arg;
          app.thread.model = arg;
        } else {
          if (!APPROVAL_POLICIES.includes(arg)) {
            t.notice(`unknown approval policy ${arg}: use one of ${APPROVAL_POLICIES.join(", ")}`, "warn");
            return;
          }
          app.options.settings.approvalPolicy = arg;
          app.thread.approvalPolicy = arg;
        }
        t.notice(`${name.slice(1)} set to ${arg} (from the next turn)`);
        return;
      }
      case "/diff": {
        const result = await app.rpc("command/exec", {
          // Tracked changes, then each untracked file as an addition (as Codex's /diff).
          command: ["sh", "-c", DIFF_SCRIPT],
          cwd: app.options.settings.cwd,
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
        const listed = await app.rpc("mcpServerStatus/list", {});
        const servers = (listed.data as Params[] | undefined) ?? [];
        t.notice(
          servers.length === 0
            ? "no MCP servers configured"
            : servers
                .map(
                  (server) =>
                    `${String(server.name)}: ${Object.keys((server.tools as Params) ?? {}).join(", ") || "no tools"}`,
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

function approvalChoices(current: string): string {
  return `approval ${current}\nchoices: ${APPROVAL_POLICIES.join(", ")} (/approvals POLICY)`;
}

/** The current model and the server's others (model/list), when it can list them. */
async function modelChoices(app: SlashHost): Promise<string> {
  const current = `model ${app.thread?.model ?? "?"}`;
  try {
    const listed = await app.rpc("model/list", {});
    const models = ((listed.data as { model?: unknown }[] | undefined) ?? []).map((entry) =>
      String(entry.model),
    );
    return `${current}\navailable: ${models.join(", ")} (/model NAME)`;
  } catch (error) {
    if (error instanceof RpcCallError && error.code === METHOD_NOT_FOUND) return current;
    throw error;
  }
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
