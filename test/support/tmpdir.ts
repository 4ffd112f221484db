import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir as osTmpdir } from "node:os";
import { join } from "node:path";

export interface TempDir {
  path: string;
  cleanup(): Promise<void>;
}

/** A real temporary directory; call cleanup() (e.g. in afterEach) to remove it. */
export async function tmpdir(prefix = "tscodex-test-"): Promise<TempDir> {
  const path = await mkdtemp(join(osTmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}
