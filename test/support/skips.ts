/**
 * Conditions for `skipIf` that print why: vitest reports a skipped check without its reason.
 * The sandbox needs bubblewrap or the Landlock helper (`npm run build` compiles it with a C
 * compiler); `.ci/run` installs both, so CI skips nothing.
 */
import { bwrapBackendStatus, landlockBackendStatus } from "../../src/policy/sandbox/index.js";

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
