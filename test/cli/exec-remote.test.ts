/**
 * `tscodex exec --remote ws://HOST:PORT --remote-auth-token-env VAR` end to end (`npm run build`
 * first): the real CLI against a real `tscodex app-server --listen ws://127.0.0.1:0
 * --api-key-env VAR` and the fake model. The turn runs on the server (its home, its model
 * provider); exec's `--json` lines and human output are those of the same turn run locally,
 * ids and timings aside; `exec resume --remote` continues a thread started remotely; `exec
 * review --remote` runs the server's review/start; an approval under `-a untrusted` gets exec's
 * declared outcome; without the key, or with a wrong one, exec fails with one clear line.
 */
import { execFileSync } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WsAppServer } from "../support/app-server-client.js";
import { useExecHarness } from "../support/exec-harness.js";
import {
  customToolCall,
  functionCall,
  hang,
  message,
  reasoning,
  type ScriptedTurn,
  turn,
  usage,
} from "../support/fake-model-server.js";
import { waitFor, withMarker } from "../support/processes.js";
import { noSandbox } from "../support/skips.js";
import { tmpdir } from "../support/tmpdir.js";

const h = useExecHarness();
const KEY = "remote-key-0123456789";
let server: WsAppServer | undefined;
/** The client's own home: empty, no config, no key (the turn uses the server's). */
let clientHome: { path: string; cleanup(): Promise<void> } | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
  await clientHome?.cleanup();
  clientHome = undefined;
});

/** An app-server in the harness's home and work dir, requiring KEY as `--api-key-env APPKEY`. */
async function startServer(): Promise<WsAppServer> {
  server = await WsAppServer.start({ home: h.home, cwd: h.work, env: { APPKEY: KEY } }, [
    "--api-key-env",
    "APPKEY",
  ]);
  return server;
}

/** `tscodex exec --remote URL --remote-auth-token-env TOKEN <args>` from an empty home. */
async function remoteExec(url: string, args: string[], env: Record<string, string> = { TOKEN: KEY }) {
  clientHome ??= await tmpdir("tscodex-client-home-");
  return h.cli(["exec", "--remote", url, "--remote-auth-token-env", "TOKEN", ...args], {
    home: clientHome.path,
    env: { FAKE_KEY: "", ...env },
  });
}

/** The JSONL events of a run, ids kept apart so sequences compare. */
function events(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .map((event) => (event.type === "thread.started" ? { ...event, thread_id: "<id>" } : event));
}

/** A human run's stderr with what differs between runs (ids, paths, timings) made constant. */
function human(stderr: string): string {
  return stderr
    .replace(/session id: \S+/g, "session id: <id>")
    .replace(/in \d+\.\d+s/g, "in <t>s")
    .replace(/tscodex app-server: .*\n/g, "");
}

/** The scripted turn both runs get: reasoning, a command, a patch, a plan, a message. */
function scriptedTurn(): ScriptedTurn[] {
  return [
    turn(
      reasoning(["Looking at the files."]),
      functionCall("shell_command", { command: "echo remote-out" }, "call_1"),
    ),
    turn(
      customToolCall(
        "apply_patch",
        "*** Begin Patch\n*** Add File: added.txt\n+hi\n*** End Patch\n",
        "call_2",
      ),
    ),
    turn(functionCall("update_plan", { plan: [{ step: "write added.txt", status: "completed" }] }, "call_3")),
    turn(message("all done"), usage({ input: 120, output: 30 })),
  ];
}

const unsandboxed = await noSandbox("exec --remote runs commands in workspace-write");

describe("exec --remote", () => {
  it.skipIf(unsandboxed)("--json: the same item sequence as the same turn run locally", async () => {
    h.server.enqueue(...scriptedTurn());
    const local = await h.exec(["--json", "--full-auto", "do the work"]);
    expect(local.code).toBe(0);
    await rm(join(h.work, "added.txt"));

    const { url } = await startServer();
    h.server.enqueue(...scriptedTurn());
    const remote = await remoteExec(url, ["--json", "--full-auto", "do the work"]);
    expect(remote.stderr).toBe("");
    expect(remote.code).toBe(0);
    expect(events(remote.stdout)).toEqual(events(local.stdout));
    expect(events(remote.stdout).map((event) => event.type)).toContain("item.completed");
    // The server ran it: its files, its model (the client's home holds no config and no key).
    expect(await readFile(join(h.work, "added.txt"), "utf8")).toBe("hi\n");
    expect(h.server.requests).toHaveLength(8);
  });

  it.skipIf(unsandboxed)("human output and -o: those of the same turn run locally", async () => {
    h.server.enqueue(...scriptedTurn());
    const local = await h.exec(["--full-auto", "-o", "local.txt", "do the work"]);
    expect(local.code).toBe(0);
    await rm(join(h.work, "added.txt"));

    const { url } = await startServer();
    h.server.enqueue(...scriptedTurn());
    const remote = await remoteExec(url, ["--full-auto", "-o", join(h.work, "remote.txt"), "do the work"]);
    expect(remote.code).toBe(0);
    expect(remote.stdout).toBe("all done\n");
    expect(human(remote.stderr)).toBe(human(local.stderr));
    expect(remote.stderr).toContain(`workdir: ${h.work}`);
    expect(remote.stderr).toContain("remote-out");
    expect(await readFile(join(h.work, "remote.txt"), "utf8")).toBe("all done");
    expect(await readFile(join(h.work, "local.txt"), "utf8")).toBe("all done");
  });

  it("exec resume --remote continues a thread started remotely (its history resent)", async () => {
    const { url } = await startServer();
    h.server.enqueue(turn(message("first answer")), turn(message("second answer")));
    const first = await remoteExec(url, ["--json", "remember the word PARROT"]);
    expect(first.code).toBe(0);
    const threadId = String(JSON.parse(first.stdout.split("\n")[0] ?? "{}").thread_id);
    const second = await remoteExec(url, ["resume", threadId, "what was the word?"]);
    expect(second.stderr).toContain(`session id: ${threadId}`);
    expect(second.stdout).toBe("second answer\n");
    expect(second.code).toBe(0);
    expect(JSON.stringify(h.server.requests[1]?.input)).toContain("remember the word PARROT");
    // --last: the newest thread on the server; --remote given before `exec` works as well.
    h.server.enqueue(turn(message("third answer")));
    const last = await h.cli(
      ["--remote", url, "--remote-auth-token-env", "TOKEN", "exec", "resume", "--last", "and again?"],
      { home: clientHome?.path ?? h.home, env: { TOKEN: KEY } },
    );
    expect(last.stdout).toBe("third answer\n");
    expect(last.stderr).toContain(`session id: ${threadId}`);
  });

  it("stdin, -i (sent as a data URL), --output-schema and -c reach the server's thread", async () => {
    const { url } = await startServer();
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "base64",
    );
    clientHome ??= await tmpdir("tscodex-client-home-");
    // The image is the client's file: the server's directory does not hold it.
    await writeFile(join(clientHome.path, "dot.png"), png);
    const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };
    await writeFile(join(clientHome.path, "schema.json"), JSON.stringify(schema));
    h.server.enqueue(turn(message('{"ok":true}')));
    const result = await h.cli(
      [
        "exec",
        "--remote",
        url,
        "--remote-auth-token-env",
        "TOKEN",
        "-i",
        "dot.png",
        "--output-schema",
        "schema.json",
        "-c",
        'model="gpt-remote-test"',
      ],
      { cwd: clientHome.path, home: clientHome.path, env: { TOKEN: KEY }, stdin: "describe the image\n" },
    );
    expect(result.stderr).toContain("model: gpt-remote-test");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('{"ok":true}\n');
    const request = h.server.requests[0];
    expect(request?.body.model).toBe("gpt-remote-test");
    expect(request?.input.at(-1)).toEqual({
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: "describe the image" },
        { type: "input_image", image_url: `data:image/png;base64,${png.toString("base64")}` },
      ],
    });
    const format = (request?.body.text as { format?: { type: string; schema: unknown } } | undefined)?.format;
    expect(format?.type).toBe("json_schema");
    expect(format?.schema).toMatchObject({ required: ["ok"] });
  });

  it("exec review --remote runs the server's review/start: the verdict is the final message", async () => {
    await writeFile(join(h.work, "calc.js"), "function add(a, b) {\n  return a + b;\n}\n");
    git("add", ".");
    git("commit", "-qm", "add");
    await writeFile(join(h.work, "calc.js"), "function add(a, b) {\n  return a - b;\n}\n");
    const { url } = await startServer();
    h.server.enqueue(turn(message(JSON.stringify(review()))));
    const result = await remoteExec(url, ["review", "--uncommitted", "-o", join(h.work, "review.txt")]);
    expect(result.code).toBe(0);
    const sent = JSON.stringify(h.server.requests[0]?.input);
    expect(sent).toContain("+  return a - b;");
    expect(sent).toContain("sandbox_mode=read-only");
    expect(result.stdout).toContain("- [P1] add() subtracts");
    expect(result.stdout).toContain(`${join(h.work, "calc.js")}:2 (confidence 0.9)`);
    expect(result.stderr).toContain("review: current changes");
    expect(await readFile(join(h.work, "review.txt"), "utf8")).toContain("- [P1] add() subtracts");
  });

  it.skipIf(unsandboxed)(
    "-a untrusted: the approval gets exec's declared outcome, as in a local run",
    async () => {
      const script = () => [
        turn(functionCall("shell_command", { command: "touch asked.txt" }, "call_1")),
        turn(
          customToolCall(
            "apply_patch",
            "*** Begin Patch\n*** Add File: patched.txt\n+hi\n*** End Patch\n",
            "call_p",
          ),
        ),
        turn(message("could not")),
      ];
      h.server.enqueue(...script());
      const local = await h.exec(["--json", "-s", "workspace-write", "-a", "untrusted", "make it"]);
      expect(local.code).toBe(0);
      const { url } = await startServer();
      h.server.enqueue(...script());
      const remote = await remoteExec(url, ["--json", "-s", "workspace-write", "-a", "untrusted", "make it"]);
      expect(remote.code).toBe(0);
      expect(events(remote.stdout)).toEqual(events(local.stdout));
      // Declined (approvals.exec_outcome's default): the command never ran, the model was told.
      expect(h.outputOf(-1, "call_1")).toBe(h.outputOf(1, "call_1"));
      await expect(readFile(join(h.work, "asked.txt"))).rejects.toThrow();
      await expect(readFile(join(h.work, "patched.txt"))).rejects.toThrow();

      // approvals.exec_outcome = "approve" in the client's config: approved, it runs on the server.
      clientHome ??= await tmpdir("tscodex-client-home-");
      await writeFile(join(clientHome.path, "config.toml"), '[approvals]\nexec_outcome = "approve"\n');
      h.server.enqueue(
        turn(functionCall("shell_command", { command: "touch asked.txt" }, "call_2")),
        turn(message("made it")),
      );
      const approved = await remoteExec(url, ["-s", "workspace-write", "-a", "untrusted", "make it"]);
      expect(approved.code).toBe(0);
      expect(approved.stderr).toContain("approval requested (command)");
      expect(approved.stderr).toContain("→ approved (answered by approvals.exec_outcome)");
      await readFile(join(h.work, "asked.txt"));
    },
  );

  it("SIGTERM interrupts the remote turn: the server kills the command's tree, exec exits 143", async () => {
    const { url } = await startServer();
    const seconds = `${33_000 + Math.floor(Math.random() * 1000)}`;
    // /proc cmdlines separate arguments with NULs: this matches the sleep processes themselves.
    const marker = `sleep\0${seconds}`;
    h.server.enqueue(
      turn(
        functionCall(
          "shell_command",
          { command: `bash -c 'sleep ${seconds} & sleep ${seconds}; wait'` },
          "call_1",
        ),
      ),
      turn(hang()),
    );
    clientHome ??= await tmpdir("tscodex-client-home-");
    let pid = 0;
    const run = h.cli(
      [
        "exec",
        "--remote",
        url,
        "--remote-auth-token-env",
        "TOKEN",
        "-s",
        "danger-full-access",
        "--json",
        "go",
      ],
      {
        home: clientHome.path,
        env: { TOKEN: KEY },
        onSpawn: (child) => {
          pid = child.pid ?? 0;
        },
      },
    );
    await waitFor(async () => (await withMarker(marker)).length >= 2, 10_000);
    process.kill(pid, "SIGTERM");
    const result = await run;
    expect(result.code).toBe(143);
    expect(events(result.stdout).at(-1)).toEqual({
      type: "turn.failed",
      error: { message: "turn interrupted" },
    });
    await waitFor(async () => (await withMarker(marker)).length === 0, 10_000);
  });

  it("the server gone mid-turn: turn.failed naming the lost connection, exit 1", async () => {
    const remote = await startServer();
    h.server.enqueue(turn(hang()));
    clientHome ??= await tmpdir("tscodex-client-home-");
    const run = remoteExec(remote.url, ["--json", "wait for it"]);
    await waitFor(() => h.server.requests.length === 1, 10_000);
    remote.child.kill("SIGKILL");
    const result = await run;
    expect(result.code).toBe(1);
    const closed = "the app-server closed the connection: socket closed (1006)";
    expect(events(result.stdout).at(-1)).toEqual({ type: "turn.failed", error: { message: closed } });
    expect(result.stderr).toBe(`tscodex: ${closed}\n`);
  });

  it("the key is required: none, or a wrong one, is one clear line and exit 1", async () => {
    const { url } = await startServer();
    const wrong = await remoteExec(url, ["say hi"], { TOKEN: "not-the-key" });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(
      `tscodex: cannot connect to the app-server at ${url}: HTTP 401 Unauthorized (a missing or wrong key: see --remote-auth-token-env)\n`,
    );
    const unset = await remoteExec(url, ["say hi"], {});
    expect(unset.code).toBe(1);
    expect(unset.stderr).toBe("tscodex: --remote-auth-token-env: the variable TOKEN is not set\n");
    const without = await h.cli(["exec", "--remote", url, "say hi"]);
    expect(without.code).toBe(1);
    expect(without.stderr).toMatch(/^tscodex: cannot connect to the app-server at .*: HTTP 401 Unauthorized/);
    expect(without.stderr.split("\n")).toHaveLength(2);
    expect(h.server.requests).toHaveLength(0);
  });

  it("a closed port, and options that need this machine's threads, are one clear line", async () => {
    const { url } = await startServer();
    await server?.stop();
    const closed = await remoteExec(url, ["say hi"]);
    expect(closed.code).toBe(1);
    expect(closed.stderr).toBe(`tscodex: cannot connect to the app-server at ${url}: ECONNREFUSED\n`);
    const ephemeral = await remoteExec(url, ["--ephemeral", "say hi"]);
    expect(ephemeral.stderr).toBe("tscodex: --ephemeral: not available with --remote\n");
    const keyOnly = await h.exec(["--remote-auth-token-env", "TOKEN", "say hi"]);
    expect(keyOnly.code).toBe(1);
    expect(keyOnly.stderr).toBe("tscodex: --remote-auth-token-env needs --remote ws://HOST:PORT\n");
  });
});

function git(...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd: h.work,
    encoding: "utf8",
  });
}

/** Codex's review structure, as the reviewer model answers it. */
const review = () => ({
  findings: [
    {
      title: "[P1] add() subtracts",
      body: "`add` now returns `a - b`.",
      confidence_score: 0.9,
      priority: 1,
      code_location: { absolute_file_path: join(h.work, "calc.js"), line_range: { start: 2, end: 2 } },
    },
  ],
  overall_correctness: "patch is incorrect",
  overall_explanation: "The edit breaks addition.",
  overall_confidence_score: 0.8,
});
