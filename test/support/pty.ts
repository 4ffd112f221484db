/**
 * Runs the built CLI with its stdout on a pseudo-terminal (python3's pty module; stdin is
 * /dev/null, stderr discarded), to test what a command prints when a person reads it.
 */
import { spawn } from "node:child_process";
import { CLI_PATH } from "./cli.js";

const PTY_RUNNER = `
import os, pty, subprocess, sys
master, slave = pty.openpty()
child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.DEVNULL)
os.close(slave)
seen = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
child.wait()
sys.stdout.buffer.write(seen)
sys.exit(child.returncode)
`;

/** `tscodex ARGS` with stdout on a pty; resolves with its exit code and what the pty received. */
export function cliStdoutOnPty(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", ["-c", PTY_RUNNER, process.execPath, CLI_PATH, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "", ...options.env },
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout }));
  });
}
