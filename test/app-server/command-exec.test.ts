/**
 * command/exec beyond the buffered run (info.test.ts has that): streamed output as base64 deltas
 * before the reply, stdin writes, a pseudo-terminal with its size and resize, output caps,
 * terminate, and a disconnecting client killing what it started; every message checked against
 * Codex 0.169's schema.
 */
import { describe, expect, it } from "vitest";
import type { AppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { gone, waitFor, withMarker } from "../support/processes.js";

const h = useAppServerHarness();
/** The first schema check of a file compiles Codex's large schemas: seconds on a loaded machine. */
const FIRST_CHECK_TIMEOUT_MS = 60_000;
const full = { type: "dangerFullAccess" };

/** The bytes streamed for `processId` on `stream` so far, decoded. */
function streamed(client: AppClient, processId: string, stream = "stdout"): string {
  return client
    .notifications("command/exec/outputDelta")
    .filter((m) => m.params.processId === processId && m.params.stream === stream)
    .map((m) => Buffer.from(m.params.deltaBase64, "base64").toString("utf8"))
    .join("");
}

const waitForOutput = (client: AppClient, processId: string, text: string) =>
  client.waitFor(() => streamed(client, processId).includes(text));

describe("app-server: command/exec streaming", () => {
  it(
    "streams stdout and stderr as deltas, all before the reply, which then carries no output",
    async () => {
      const client = await h.stdio();
      const reply = await client.request("command/exec", {
        command: ["sh", "-c", "echo out; echo err >&2; exit 3"],
        processId: "p1",
        streamStdoutStderr: true,
        cwd: h.work,
        sandboxPolicy: full,
      });
      expect(reply.result).toEqual({ exitCode: 3, stdout: "", stderr: "" });
      expect(streamed(client, "p1")).toBe("out\n");
      expect(streamed(client, "p1", "stderr")).toBe("err\n");
      const replyAt = client.received.indexOf(reply);
      for (const delta of client.notifications("command/exec/outputDelta"))
        expect(client.received.indexOf(delta)).toBeLessThan(replyAt);
      expect(referenceSchemaFailures(client)).toEqual([]);
    },
    FIRST_CHECK_TIMEOUT_MS,
  );

  it("feeds stdin through command/exec/write, even sent right behind the start, and ends it with closeStdin", async () => {
    const client = await h.stdio();
    const run = client.request("command/exec", {
      command: ["cat"],
      processId: "cat",
      streamStdin: true,
      streamStdoutStderr: true,
      cwd: h.work,
      sandboxPolicy: full,
    });
    // Not waiting for any output first: the write waits for the process to start.
    const hello = Buffer.from("hello\n").toString("base64");
    expect(await client.call("command/exec/write", { processId: "cat", deltaBase64: hello })).toEqual({});
    await waitForOutput(client, "cat", "hello\n");
    expect(await client.call("command/exec/write", { processId: "cat", closeStdin: true })).toEqual({});
    expect((await run).result).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    // The process is gone: its id is free and unknown again.
    const late = await client.request("command/exec/write", { processId: "cat", closeStdin: true });
    expect(late.error).toEqual({ code: -32600, message: 'no active command/exec for process id "cat"' });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("runs on a terminal of the asked size, and resizes it", async () => {
    const client = await h.stdio();
    const run = client.request("command/exec", {
      command: ["sh", "-c", "stty size; read line; stty size; echo got:$line"],
      processId: "tty",
      tty: true,
      size: { rows: 30, cols: 100 },
      cwd: h.work,
      sandboxPolicy: full,
    });
    await waitForOutput(client, "tty", "30 100");
    expect(
      await client.call("command/exec/resize", { processId: "tty", size: { rows: 40, cols: 120 } }),
    ).toEqual({});
    await client.call("command/exec/write", {
      processId: "tty",
      deltaBase64: Buffer.from("hi\n").toString("base64"),
    });
    expect((await run).result.exitCode).toBe(0);
    expect(streamed(client, "tty")).toMatch(/40 120\r?\ngot:hi/);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("caps each stream at outputBytesCap, streamed (capReached on the last chunk) and buffered", async () => {
    const client = await h.stdio();
    const script = "head -c 300000 /dev/zero | tr '\\0' x; head -c 10 /dev/zero | tr '\\0' y >&2";
    const capped = await client.call("command/exec", {
      command: ["sh", "-c", script],
      outputBytesCap: 1000,
      cwd: h.work,
      sandboxPolicy: full,
    });
    expect(capped).toEqual({ exitCode: 0, stdout: "x".repeat(1000), stderr: "y".repeat(10) });
    await client.call("command/exec", {
      command: ["sh", "-c", script],
      processId: "capped",
      streamStdoutStderr: true,
      outputBytesCap: 1000,
      cwd: h.work,
      sandboxPolicy: full,
    });
    expect(streamed(client, "capped")).toBe("x".repeat(1000));
    const deltas = client
      .notifications("command/exec/outputDelta")
      .filter((m) => m.params.processId === "capped" && m.params.stream === "stdout");
    expect(deltas.map((m) => m.params.capReached)).toEqual([...deltas.slice(1).map(() => false), true]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("terminates a process by its id; an unknown or a duplicate id is an error", async () => {
    const client = await h.stdio();
    const run = client.request("command/exec", {
      command: ["sh", "-c", "echo up; sleep 30"],
      processId: "long",
      streamStdoutStderr: true,
      disableTimeout: true,
      cwd: h.work,
      sandboxPolicy: full,
    });
    await waitForOutput(client, "long", "up\n");
    const duplicate = await client.request("command/exec", {
      command: ["true"],
      processId: "long",
      cwd: h.work,
      sandboxPolicy: full,
    });
    expect(duplicate.error).toEqual({
      code: -32600,
      message: 'duplicate active command/exec process id: "long"',
    });
    const unknown = await client.request("command/exec/terminate", { processId: "nope" });
    expect(unknown.error).toEqual({ code: -32600, message: 'no active command/exec for process id "nope"' });
    const started = Date.now();
    expect(await client.call("command/exec/terminate", { processId: "long" })).toEqual({});
    // SIGTERM ended it: 128 + 15.
    expect((await run).result).toEqual({ exitCode: 143, stdout: "", stderr: "" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("refuses what it cannot do, with the reason", async () => {
    const client = await h.stdio();
    const cases: [string, unknown, number, RegExp][] = [
      [
        "command/exec",
        { command: ["true"], streamStdoutStderr: true },
        -32600,
        /requires a client-supplied processId/,
      ],
      [
        "command/exec",
        { command: ["true"], processId: "s", size: { rows: 1, cols: 1 } },
        -32600,
        /only valid with tty/,
      ],
      ["command/exec", { command: ["true"], timeoutMs: 5, disableTimeout: true }, -32600, /disableTimeout/],
      ["command/exec", { command: [] }, -32602, /command must name a program/],
      ["command/exec/write", { processId: "x" }, -32602, /requires deltaBase64 or closeStdin/],
      ["command/exec/write", { processId: "x", deltaBase64: "not base64!" }, -32602, /not valid base64/],
      [
        "command/exec/resize",
        { processId: "x", size: { rows: 1, cols: 1 } },
        -32600,
        /no active command\/exec/,
      ],
    ];
    for (const [method, params, code, message] of cases) {
      const reply = await client.request(method, params);
      expect(reply.error?.code, method).toBe(code);
      expect(reply.error?.message).toMatch(message);
    }
    // Resizing a process on pipes.
    const run = client.request("command/exec", {
      command: ["sh", "-c", "echo up; read line; echo eof"],
      processId: "pipes",
      streamStdin: true,
      streamStdoutStderr: true,
      cwd: h.work,
      sandboxPolicy: full,
    });
    await waitForOutput(client, "pipes", "up\n");
    const resize = await client.request("command/exec/resize", {
      processId: "pipes",
      size: { rows: 5, cols: 5 },
    });
    expect(resize.error?.message).toMatch(/needs a tty/);
    await client.call("command/exec/write", { processId: "pipes", closeStdin: true });
    expect((await run).result.exitCode).toBe(0);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("kills what a WebSocket client started when it disconnects", async () => {
    const server = await h.wsServer();
    const client = await server.connect();
    await client.initialize();
    const marker = `${600 + Math.floor(Math.random() * 1000)}.${process.pid}`;
    void client.request("command/exec", {
      command: ["sh", "-c", `echo up; sleep ${marker}; echo never`],
      processId: "orphan",
      streamStdoutStderr: true,
      disableTimeout: true,
      cwd: h.work,
      sandboxPolicy: full,
    });
    await waitForOutput(client, "orphan", "up\n");
    // `sleep` starts just after `echo up` prints: wait for it to show in /proc.
    let pids: number[] = [];
    await waitFor(async () => {
      pids = await withMarker(`sleep\0${marker}`);
      return pids.length > 0;
    });
    expect(referenceSchemaFailures(client)).toEqual([]);
    await client.close();
    for (const pid of pids) expect(await gone(pid, 5_000)).toBe(true);
  });
});
