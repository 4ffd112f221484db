/**
 * `npm run bench -- tui`: the terminal UI's speed (issue 29), in a real pseudo-terminal.
 * - Start-up: spawn `tscodex` in a PTY until the first screen (composer drawn) and until the
 *   thread is open (the composer's idle hint), against `node -e 0` in the same PTY.
 * - Keystroke to echo: while a command streams 2,000 lines, type characters one at a time and
 *   time each until the composer row holding it is written (NO_COLOR, so it is plain text).
 * - Frame time: a 10,000-line command output fed as deltas through the transcript, layout and
 *   differential renderer in process; time per frame. Plus the cost of loading react alone
 *   (Ink's floor), the alternative this renderer was measured against.
 */
import { spawn as spawnChild } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { functionCall, message, turn } from "../test/support/fake-model-server.js";
import {
  benchRuns,
  fakeProviderToml,
  median,
  TSCODEX_BIN,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";

type Pty = {
  onData(listener: (data: string) => void): void;
  write(data: string): void;
  kill(): void;
  onExit(listener: () => void): void;
};
type PtyModule = {
  spawn(file: string, args: string[], options: Record<string, unknown>): Pty;
};

const RUNS = benchRuns(7);

async function loadPty(): Promise<PtyModule> {
  return (await import("@lydell/node-pty")) as unknown as PtyModule;
}

/** Runs argv in a PTY; resolves with ms until the output matches `until` (then kills it). */
function timeUntil(
  pty: PtyModule,
  argv: string[],
  env: Record<string, string>,
  cwd: string,
  until: RegExp[],
) {
  return new Promise<number[]>((resolve, reject) => {
    const start = performance.now();
    const child = pty.spawn(argv[0] as string, argv.slice(1), { cols: 100, rows: 30, cwd, env });
    let output = "";
    const times: number[] = [];
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`timed out; output: ${output.slice(-500)}`));
    }, 20_000);
    child.onData((data) => {
      output += data;
      while (times.length < until.length && until[times.length]?.test(output))
        times.push(performance.now() - start);
      if (times.length === until.length) {
        clearTimeout(timer);
        child.kill();
        resolve(times);
      }
    });
    child.onExit(() => {
      if (times.length === until.length) return;
      clearTimeout(timer);
      resolve(until.map(() => performance.now() - start));
    });
  });
}

async function startup(pty: PtyModule, dir: string, env: Record<string, string>) {
  const node: number[] = [];
  const firstScreen: number[] = [];
  const ready: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const [floor = 0] = await timeUntil(pty, [process.execPath, "-e", "0"], env, dir, [/$^/]);
    const [first = 0, open = 0] = await timeUntil(pty, [process.execPath, TSCODEX_BIN], env, dir, [
      /connecting…/,
      /Ask anything/,
    ]);
    if (run === 0) continue;
    node.push(floor);
    firstScreen.push(first);
    ready.push(open);
  }
  return { node: median(node), firstScreen: median(firstScreen), threadOpen: median(ready) };
}

async function echoWhileStreaming(pty: PtyModule, dir: string, env: Record<string, string>) {
  const child = pty.spawn(
    process.execPath,
    [TSCODEX_BIN, "--dangerously-bypass-approvals-and-sandbox", "stream"],
    {
      cols: 100,
      rows: 30,
      cwd: dir,
      env,
    },
  );
  let output = "";
  let outputRows = 0;
  let waiter: { pattern: string; resolve: () => void } | null = null;
  child.onData((data) => {
    output += data;
    outputRows += data.split("streamed line").length - 1;
    if (output.length > 1_000_000) output = output.slice(-100_000);
    if (waiter && output.includes(waiter.pattern)) {
      const done = waiter.resolve;
      waiter = null;
      done();
    }
  });
  const until = (pattern: string, timeoutMs = 20_000) =>
    new Promise<void>((resolve, reject) => {
      if (output.includes(pattern)) return resolve();
      const timer = setTimeout(
        () => reject(new Error(`never saw ${pattern}: ${output.slice(-400)}`)),
        timeoutMs,
      );
      waiter = {
        pattern,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
  await until("Running");
  outputRows = 0;
  const echoes: number[] = [];
  let typed = "";
  for (let i = 0; i < 40; i++) {
    typed += "q";
    const start = performance.now();
    const seen = until(`› ${typed}▏`);
    output = "";
    child.write("q");
    await seen;
    echoes.push(performance.now() - start);
  }
  child.kill();
  // Output rows the UI redrew while the keys were typed: the stream really was running.
  return { medianMs: median(echoes), maxMs: Math.max(...echoes), rowsDrawnMeanwhile: outputRows };
}

async function frameTimes() {
  const { Transcript } = await import("../src/frontends/tui/transcript.js");
  const { TranscriptLayout, composerRows } = await import("../src/frontends/tui/layout.js");
  const { Screen } = await import("../src/frontends/tui/screen.js");
  const { createStyle } = await import("../src/frontends/tui/style.js");
  const { readNotification } = await import("../src/frontends/tui/wire.js");
  const apply = (method: string, params: unknown) => {
    const notification = readNotification(method, params);
    if (notification) transcript.apply(notification);
  };
  const style = createStyle(true);
  const transcript = new Transcript();
  const layout = new TranscriptLayout(style);
  let written = 0;
  const screen = new Screen({ write: (text) => (written += text.length) }, 30);
  for (let i = 0; i < 200; i++) transcript.notice(`earlier line ${i} `.repeat(3));
  apply("item/started", {
    item: { type: "commandExecution", id: "c1", command: "big", status: "inProgress", commandActions: [] },
  });
  const frames: number[] = [];
  for (let line = 0; line < 10_000; line += 50) {
    let delta = "";
    for (let i = line; i < line + 50; i++) delta += `output line ${i} ${"x".repeat(40)}\n`;
    apply("item/commandExecution/outputDelta", { itemId: "c1", delta });
    const start = performance.now();
    const rows = layout.rows(transcript.blocks, 100);
    rows.push(...composerRows("", 0, 100, style, "hint"), "status");
    screen.draw(rows);
    frames.push(performance.now() - start);
  }
  return {
    frames: frames.length,
    medianMs: median(frames),
    maxMs: Math.max(...frames),
    bytesWritten: written,
  };
}

function reactLoadMs(): Promise<number> {
  return new Promise((resolve) => {
    const start = performance.now();
    const child = spawnChild(process.execPath, ["-e", "import('react').then(()=>{})"], { stdio: "ignore" });
    child.on("exit", () => resolve(performance.now() - start));
  });
}

async function main(): Promise<void> {
  const pty = await loadPty();
  await withTempDirAndServer("tscodex-bench-tui-", async (dir, server) => {
    await writeFile(join(dir, "config.toml"), fakeProviderToml(server.url));
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: dir,
      TSCODEX_HOME: dir,
      FAKE_KEY: "sk-bench",
      TERM: "xterm-256color",
      NO_COLOR: "1",
    };
    const start = await startup(pty, dir, env);
    server.enqueue(
      turn(
        functionCall(
          "shell_command",
          { command: "i=0; while [ $i -lt 2000 ]; do echo streamed line $i; i=$((i+1)); sleep 0.002; done" },
          "call_1",
        ),
      ),
      turn(message("done")),
    );
    const echo = await echoWhileStreaming(pty, dir, env);
    const frames = await frameTimes();
    const react: number[] = [];
    for (let i = 0; i < 5; i++) react.push(await reactLoadMs());
    console.log("start-up in a PTY (median); target: first screen <= 1.5x node -e 0");
    console.table({
      "node -e 0": { ms: start.node.toFixed(0), x: "1.00" },
      "tscodex first screen": {
        ms: start.firstScreen.toFixed(0),
        x: (start.firstScreen / start.node).toFixed(2),
      },
      "tscodex thread open": {
        ms: start.threadOpen.toFixed(0),
        x: (start.threadOpen / start.node).toFixed(2),
      },
      "node + import react (Ink's floor)": {
        ms: median(react).toFixed(0),
        x: (median(react) / start.node).toFixed(2),
      },
    });
    console.log("keystroke to echo while a command streams 2,000 lines; target median <= 16 ms");
    console.table({
      echo: {
        median: `${echo.medianMs.toFixed(1)} ms`,
        max: `${echo.maxMs.toFixed(1)} ms`,
        rowsDrawnMeanwhile: echo.rowsDrawnMeanwhile,
      },
    });
    console.log("frame time, 10,000-line command output in 200 frames");
    console.table({
      frames: {
        median: `${frames.medianMs.toFixed(2)} ms`,
        max: `${frames.maxMs.toFixed(2)} ms`,
        bytes: frames.bytesWritten,
      },
    });
    await writeResults("tui", { start, echo, frames, reactLoadMs: median(react) });
  });
}

await main();
