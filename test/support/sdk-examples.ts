/**
 * The MCP TypeScript SDK's own example servers (node_modules/@modelcontextprotocol/sdk/dist/
 * esm/examples/server/), run as they ship: `node FILE [args]` on free loopback ports, ready once
 * they print their start-up line on stdout. Stopped with SIGKILL (they hold open SSE streams).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";

const EXAMPLES = join(process.cwd(), "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server");

/** A port free right now on 127.0.0.1 (the examples take theirs from the environment). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

export interface SdkExample {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/** Start example `file` with `args` and `env`; resolves once stdout matches `ready`. */
export function startSdkExample(
  file: string,
  options: { args?: string[]; env: Record<string, string>; ready: RegExp },
): Promise<SdkExample> {
  const child = spawn(process.execPath, [join(EXAMPLES, file), ...(options.args ?? [])], {
    env: { PATH: process.env.PATH ?? "", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGKILL");
    await exited;
  };
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (options.ready.test(output)) resolve({ child, output: () => output, stop });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) =>
      reject(new Error(`${file} exited (${code}) before it was ready:\n${output}`)),
    );
  });
}
