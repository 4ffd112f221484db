/**
 * Conditions for `skipIf` that print why: vitest reports a skipped check without its reason.
 * The sandbox needs bubblewrap or the Landlock helper (`npm run build` compiles it with a C
 * compiler); the terminal UI tests need tmux, the screenshot tests Debian's unifont, some checks
 * python3 or curl. `.ci/run` installs all of them, so CI skips nothing;
 * `scripts/fresh-clone-check.sh --without …` checks that a machine without them skips, not fails.
 */
import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { TestRunner } from "vitest";
import { UNIFONT_HEX } from "../../scripts/screenshot/terminal-png.js";
import {
  bwrapBackendStatus,
  containmentStatus,
  landlockBackendStatus,
} from "../../src/policy/sandbox/index.js";

const HINT = "apt-get install bubblewrap gcc, as .ci/run does, then npm run build";

/** True (and says so on stderr) when `status` is unavailable: `skipIf(missing(status, "…"))`. */
export function missing(
  status: { available: true } | { available: false; reason: string },
  what: string,
): boolean {
  if (status.available) return false;
  console.warn(`skipped ${what}: ${status.reason} (${HINT})`);
  return true;
}

/** True (and says why) when neither sandbox backend works here. */
export async function noSandbox(what: string): Promise<boolean> {
  const [bwrap, landlock] = await Promise.all([bwrapBackendStatus(), landlockBackendStatus()]);
  if (bwrap.available || landlock.available) return false;
  console.warn(`skipped ${what}: no sandbox backend: ${bwrap.reason}; ${landlock.reason} (${HINT})`);
  return true;
}

/**
 * True (and says why) when commands cannot be contained: the helper's keeper (built with a C
 * compiler) is what ends a killed tscodex's commands and their daemons.
 */
export async function noContainment(what: string): Promise<boolean> {
  const status = await containmentStatus();
  if (status.available) return false;
  console.warn(`skipped ${what}: commands cannot be contained here: ${status.reason} (${HINT})`);
  return true;
}

/** Whether `program` is an executable file in a $PATH directory. */
export function onPath(program: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir || ".", program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** True (and says why) when `program` is not installed: `describe.skipIf(noProgram("curl", "…"))`. */
export function noProgram(program: string, what: string, hint = `apt-get install ${program}`): boolean {
  if (onPath(program)) return false;
  console.warn(`skipped ${what}: ${program} is not installed (${hint})`);
  return true;
}

/** True (and says why) when GNU Unifont's `.hex` font is absent. */
export function noUnifont(what: string): boolean {
  if (existsSync(UNIFONT_HEX)) return false;
  console.warn(`skipped ${what}: no bitmap font at ${UNIFONT_HEX} (apt-get install unifont)`);
  return true;
}

/**
 * For a helper a test calls (a pty runner, a curl client): when `program` is not installed the
 * running test is skipped here, saying why; outside a test, an Error says the same.
 */
export function requireProgram(program: string, hint = `apt-get install ${program}`): void {
  if (onPath(program)) return;
  const reason = `${program} is not installed (${hint})`;
  const test = TestRunner.getCurrentTest();
  if (!test) throw new Error(reason);
  console.warn(`skipped ${test.name}: ${reason}`);
  test.context.skip(reason);
}

/** How tscodex refuses a command when no sandbox backend works (policy/sandbox/prepare.ts). */
const NO_BACKEND = /cannot run the (read-only|workspace-write) sandbox: /;

/**
 * For the harnesses: when `seen` (a run's output, what the model was sent, a screen) shows a
 * command refused because no sandbox backend works, and none works on this machine, the running
 * test is skipped, saying why: it needs bubblewrap or the Landlock helper, which a fresh machine
 * may lack. With a backend here the refusal is a real failure, and nothing is skipped.
 */
export async function skipIfSandboxWasNeeded(seen: string): Promise<void> {
  if (!NO_BACKEND.test(seen)) return;
  const [bwrap, landlock] = await Promise.all([bwrapBackendStatus(), landlockBackendStatus()]);
  if (bwrap.available || landlock.available) return;
  const test = TestRunner.getCurrentTest();
  if (!test) return;
  const reason = `a command needed a sandbox and no backend works here: ${bwrap.reason}; ${landlock.reason} (${HINT})`;
  console.warn(`skipped ${test.name}: ${reason}`);
  test.context.skip(reason);
}

/** For a test whose command must run sandboxed: skipped here, saying why, when no backend works. */
export async function requireSandbox(): Promise<void> {
  const test = TestRunner.getCurrentTest();
  if (test && (await noSandbox(test.name))) test.context.skip("no sandbox backend works here");
}
