/** Running a probe command (plain or wrapped in a sandbox) for the servers' caller checks. */
import { runCommand } from "../../src/exec/spawn.js";
import { bwrapBackendStatus, landlockBackendStatus } from "../../src/policy/sandbox/index.js";
import { renderCaptured } from "../../src/tools/truncate.js";

/** Both sandbox backends and whether each works here. */
export async function sandboxBackends() {
  return [
    { name: "bwrap" as const, status: await bwrapBackendStatus() },
    { name: "landlock" as const, status: await landlockBackendStatus() },
  ];
}

/** Runs `argv` in `cwd` with a bare environment; its combined output, trimmed. */
export async function runProbe(argv: string[], cwd: string): Promise<string> {
  const result = await runCommand({
    argv,
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd },
    timeoutMs: 10_000,
  });
  return renderCaptured(result.aggregated).trim();
}
