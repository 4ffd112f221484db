/**
 * Runs the built CLI with its stdout or its stderr on a pseudo-terminal (python3's pty module;
 * stdin and the other stream are /dev/null), to test what a command prints when a person reads it.
 */
import { spawn } from "node:child_process";
import { CLI_PATH } from "./cli.js";
import { requireProgram } from "./skips.js";

const PTY_RUNNER = `
import os, pty, subprocess, sys
master, slave = pty.openpty()
on_pty = sys.argv[1]
child = subprocess.Popen(
    sys.argv[2:],
    stdin=subprocess.DEVNULL,
    stdout=slave if on_pty == "stdout" else subprocess.DEVNULL,
    stderr=slave if on_pty == "stderr" else subprocess.DEVNULL,
)
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
export async function cliStdoutOnPty(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number | null; stdout: string }> {
  const { code, shown } = await cliOnPty("stdout", args, options);
  return { code, stdout: shown };
}

/** `tscodex ARGS` with stderr on a pty; resolves with its exit code and what the pty received. */
export async function cliStderrOnPty(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number | null; stderr: string }> {
  const { code, shown } = await cliOnPty("stderr", args, options);
  return { code, stderr: shown };
}

function cliOnPty(
  stream: "stdout" | "stderr",
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number | null; shown: string }> {
  // The pty comes from python3's pty module: without python3 the test is skipped.
  requireProgram("python3");
  return new Promise((resolve, reject) => {
    const child = spawn("python3", ["-c", PTY_RUNNER, stream, process.execPath, CLI_PATH, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "", ...options.env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let shown = "";
    child.stdout.on("data", (chunk: Buffer) => {
      shown += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, shown }));
  });
}
