/**
 * A `codex` executable for programs that spawn one (the Codex SDK's `codexPathOverride`,
 * codex-mcp-server's `codex` on PATH): a shell script that execs the built tscodex CLI, so the
 * signal a wrapper sends reaches tscodex itself.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CLI_PATH } from "../support/cli.js";

/** Writes `<dir>/codex` and returns its path. */
export async function writeCodexShim(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, "codex");
  await writeFile(path, `#!/bin/sh\nexec "${process.execPath}" "${CLI_PATH}" "$@"\n`);
  await chmod(path, 0o755);
  return path;
}
