/**
 * A new user's first mistakes, through the real CLI: each is refused or warned about in words
 * that say what to do, before the model is called.
 */
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_PATH, runCli } from "../support/cli.js";
import { useExecHarness } from "../support/exec-harness.js";
import { delay, functionCall, httpError, message, turn } from "../support/fake-model-server.js";
import { gone } from "../support/processes.js";

const h = useExecHarness({ key: "k" });

const lines = (text: string) => text.trimEnd().split("\n");

/** Runs `bash -c script` (args as $1...) in the work dir with the test's home and key. */
function runBash(
  script: string,
  args: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script, "bash", ...args], {
      cwd: h.work,
      env: { PATH: process.env.PATH ?? "", HOME: h.home, TSCODEX_HOME: h.home, FAKE_KEY: "k" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdin.end();
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("exec refuses what cannot work, before the model is called, in one line", () => {
  it("an empty prompt", async () => {
    const result = await h.exec([""]);
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual(["tscodex: empty prompt: say what the agent should do"]);
    expect(h.server.requests).toHaveLength(0);
  });

  it("-o into a directory that does not exist", async () => {
    const result = await h.exec(["-o", "missing/answer.txt", "hi"]);
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      `tscodex: -o ${join(h.work, "missing/answer.txt")}: directory ${join(h.work, "missing")} does not exist`,
    ]);
    expect(h.server.requests).toHaveLength(0);
  });

  it("a working directory deleted under it", async () => {
    const gone = join(h.work, "gone");
    await mkdir(gone);
    // The shell enters the directory, removes it, then becomes tscodex (whose cwd is then gone).
    const result = await runBash('cd "$1" && rmdir "$1" && exec "$2" "$3" exec hi', [
      gone,
      process.execPath,
      CLI_PATH,
    ]);
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      "tscodex: the working directory was deleted; cd into an existing directory, or pass -C DIR",
    ]);
    expect(h.server.requests).toHaveLength(0);
  });

  it("`exec resume TEXT` with no thread TEXT suggests --last", async () => {
    const result = await h.exec(["resume", "fix the bug"]);
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      'tscodex: exec resume fix the bug: no prompt; to continue the most recent thread: tscodex exec resume --last "fix the bug"',
    ]);
    const withPrompt = await h.exec(["resume", "nosuchthread", "go on"]);
    expect(withPrompt.code).toBe(1);
    expect(withPrompt.stderr).toContain(
      'no stored thread with id nosuchthread; to continue the most recent thread: tscodex exec resume --last "nosuchthread"',
    );
    expect(h.server.requests).toHaveLength(0);
  });
});

describe("config problems", () => {
  it("warns about misspelt keys inside tables, in config.toml and in -c, and still runs", async () => {
    await h.writeConfig({
      extra: [
        "[sandbox_workspace_write]",
        "netwrok_access = true",
        "[shell_environment_policy]",
        'inherrit = "all"',
        "[features]",
        "anything_goes = true",
      ].join("\n"),
    });
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec([
      "-c",
      "sandbox_workspace_write.writable_rootz=[]",
      "-c",
      "tools.bogus=1",
      "hi",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const config = join(h.home, "config.toml");
    expect(result.stderr).toContain(
      `warning: ${config}: unknown key 'sandbox_workspace_write.netwrok_access' (ignored)`,
    );
    expect(result.stderr).toContain(
      `warning: ${config}: unknown key 'shell_environment_policy.inherrit' (ignored)`,
    );
    expect(result.stderr).toContain(
      "warning: -c sandbox_workspace_write.writable_rootz: unknown key (ignored)",
    );
    expect(result.stderr).toContain("warning: -c tools.bogus: unknown key (ignored)");
    // Known keys, and the free-form [features] map, are not warned about.
    expect(result.stderr).not.toMatch(/anything_goes|'model'|model_providers/);
  });

  it("blames a bad -c value on -c and reports every problem of the run at once", async () => {
    await h.writeConfig({ extra: 'approval_policy = "sometimes"' });
    const result = await h.exec(["-c", "sandbox_mode=bogus", "-c", "model_context_window=-1", "hi"]);
    expect(result.code).toBe(1);
    const config = join(h.home, "config.toml");
    expect(result.stderr).toMatch(/-c sandbox_mode: Invalid option/);
    expect(result.stderr).toMatch(/-c model_context_window: Too small/);
    expect(result.stderr).toContain(`${config}: key 'approval_policy'`);
    expect(result.stderr).not.toContain(`${config}: key 'sandbox_mode'`);
    expect(h.server.requests).toHaveLength(0);
  });

  it("the no-key message names the config file and CODEX_API_KEY", async () => {
    await writeFile(join(h.home, "config.toml"), "");
    const result = await runCli(["exec", "hi"], { cwd: h.work, home: h.home });
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^tscodex: no API key for model provider 'openai': set OPENAI_API_KEY /);
    expect(result.stderr).toContain("CODEX_API_KEY");
    expect(result.stderr).toContain(join(h.home, "config.toml"));
  });
});

describe("sessions migrate", () => {
  it("takes the target from [store] url when --to is absent, and says what to pass when neither is set", async () => {
    await writeFile(join(h.home, "config.toml"), "");
    const neither = await h.cli(["sessions", "migrate"]);
    expect(neither.code).toBe(1);
    expect(lines(neither.stderr)).toEqual([
      "tscodex: sessions migrate: no target store: pass --to postgres://..., or set [store] url (or $TSCODEX_STORE_URL)",
    ]);
    // A database nobody listens on: the command tries the configured store (and says it failed).
    await writeFile(join(h.home, "config.toml"), '[store]\nurl = "postgres://u:p@127.0.0.1:1/db"\n');
    const configured = await h.cli(["sessions", "migrate"], { timeoutMs: 60_000 });
    expect(configured.code).toBe(1);
    expect(configured.stderr).toContain("127.0.0.1:1");
    expect(configured.stderr).not.toContain("--to");
  });
});

describe("the command line itself", () => {
  it("with no arguments and no terminal says the UI needs one and points at exec (exit 2)", async () => {
    const result = await h.cli([]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toEqual([
      'tscodex: the interactive UI needs a terminal (stdin and stdout); run the agent on a prompt with `tscodex exec "..."` (`tscodex --help` lists every command)',
    ]);
  });

  it("a bad flag is a usage error: the error, then the usage line, not the whole help (exit 2)", async () => {
    for (const args of [["--bogus"], ["exec", "--bogus", "hi"], ["sessions", "list", "--bogus"]]) {
      const result = await h.cli(args);
      expect(result.code).toBe(2);
      const errorLines = lines(result.stderr);
      expect(errorLines[0]).toBe("error: unexpected argument '--bogus' found");
      expect(errorLines[4]).toMatch(/^Usage: tscodex/);
      expect(errorLines.at(-1)).toBe("For more information, try '--help'.");
      expect(result.stderr).not.toContain("Options:");
    }
  });

  it("help text wraps at word boundaries within 80 columns", async () => {
    const commands = [[], ["exec"], ["exec", "resume"], ["sessions", "migrate"], ["proxy"], ["mcp-server"]];
    for (const command of commands) {
      const result = await h.cli([...command, "--help"]);
      expect(result.code).toBe(0);
      for (const line of lines(result.stdout)) expect(line.length, line).toBeLessThanOrEqual(80);
      // Wrapping happened between words: put back together, the long descriptions are whole.
      const text = result.stdout.replace(/\s+/g, " ");
      if (command.length === 0) {
        expect(text).toContain(
          "--dangerously-bypass-approvals-and-sandbox danger-full-access sandbox and no approvals (only inside an externally sandboxed environment)",
        );
        expect(text).toContain("config approvals.exec_outcome (deny, or approve)");
      }
    }
  });
});

describe("exec --json into a reader that stops reading", () => {
  it("ends quietly: no stack trace, the turn interrupted, its commands killed", async () => {
    const pidFile = join(h.work, "cmd.pid");
    // A background command (exec_command yields after 200 ms and goes on running), then a model
    // that takes its time: by the time anything more is written, the reader is gone.
    h.server.enqueue(
      turn(
        functionCall(
          "exec_command",
          { cmd: `echo $$ > ${pidFile}; exec sleep 30`, yield_time_ms: 200 },
          "c1",
        ),
      ),
      turn(delay(1500), message("never read")),
    );
    const cli = `"${process.execPath}" "${CLI_PATH}" exec --json -s danger-full-access -c features.unified_exec=true go`;
    // The reader takes the first line, waits until the command runs, and leaves (as `head -1` would).
    const reader = `{ IFS= read -r first; echo "$first"; while [ ! -s ${pidFile} ]; do sleep 0.05; done; }`;
    const result = await runBash(`${cli} | ${reader}; echo "tscodex exit \${PIPESTATUS[0]}" >&2`);
    expect(JSON.parse(result.stdout.trim())).toMatchObject({ type: "thread.started" });
    // Where commands cannot be contained (no helper), tscodex says so in its one documented line.
    const stderr = result.stderr.replace(/^tscodex: warning: commands cannot be contained here .*\n/m, "");
    expect(stderr.trim()).toBe("tscodex exit 141");
    const pid = Number((await readFile(pidFile, "utf8")).trim());
    expect(await gone(pid)).toBe(true);
  });
});

describe("a failing MCP server", () => {
  it("is reported with its error line, not the tail of its stack trace", async () => {
    // A Node server that throws at start-up: its stderr ends with the stack, the error's
    // properties and `Node.js vXX`.
    const crash = "const e = new Error('database password rejected'); e.code = 'E_AUTH'; throw e;";
    await h.writeConfig({
      extra: `\n[mcp_servers.db]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ["-e", ${JSON.stringify(crash)}]\n`,
    });
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["hi"]);
    expect(result.stderr).toContain(
      "MCP server 'db' failed to start: Mcp error: -32000: Connection closed (stderr: Error: database password rejected)",
    );
    expect(result.stderr).not.toContain("Node.js v");
  });
});

describe("model provider failures", () => {
  it("a 401 is one line that says to check the key", async () => {
    h.server.enqueue(
      httpError(401, { error: { message: "Incorrect API key provided: sk-***", code: "invalid_api_key" } }),
    );
    const result = await h.exec(["hi"]);
    expect(result.code).toBe(1);
    const failure = lines(result.stderr).filter((line) => line.includes("401"));
    expect(failure).toHaveLength(1);
    expect(failure[0]).toContain(
      "model provider 'fake' refused the request (401 Unauthorized: Incorrect API key provided: sk-***); check its API key",
    );
    expect(result.stderr).not.toContain('{"error"');
    expect(h.server.requests).toHaveLength(1);
  });

  it("--oss with nothing listening asks whether Ollama is running, after one try", async () => {
    const base = "http://127.0.0.1:1/v1";
    const result = await h.exec(["--oss", "hi"], { env: { CODEX_OSS_BASE_URL: base } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`is Ollama running at ${base}?`);
    expect(result.stderr).not.toMatch(/retrying/);
  });
});
