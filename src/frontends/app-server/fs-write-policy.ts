/**
 * Whether the server's sandbox lets a client's `fs/*` request write a path: read-only refuses
 * every write; workspace-write allows the writable roots (the server's cwd, writable_roots,
 * /tmp, $TMPDIR) minus what stays read-only inside them (every `.git`, `.codex`, `.tscodex` and
 * `.agents` entry below a root, at any depth, and the tscodex home); danger-full-access allows
 * all. Paths are judged as real paths (real-target.ts resolves them), so neither `..` nor a
 * symlink, the last component's included, reaches out.
 */

import type { Config } from "../../config/load.js";
import { pathsOutside, realWritableRoots } from "../../policy/patch-paths.js";
import { GUARDED_NAMES } from "../../policy/sandbox/layout.js";
import { RpcError } from "./protocol/jsonrpc.js";
import { serverSandboxPolicy } from "./server-sandbox.js";

/**
 * Entry names fs/* never creates, changes or removes inside a writable root, at any depth and
 * in any case: the names no sandboxed command may create either (layout.ts).
 */
export const PROTECTED_NAMES: readonly string[] = GUARDED_NAMES;

const PROTECTED_LIST = `${PROTECTED_NAMES.slice(0, -1).join(", ")} and ${PROTECTED_NAMES.at(-1)}`;

/** What one fs/* request may write, decided once per request from the server's sandbox. */
export interface WriteGuard {
  /** Whether `realPath` (absolute, every component resolved) may be created, changed or removed. */
  allows(realPath: string): boolean;
  /** -32600 for `requested`, which resolved to `realPath`, a path `allows` refused. */
  refusal(requested: string, realPath: string): RpcError;
  /** -32600 for a tree operation that would touch `entry`, a path `allows` refused. */
  treeRefusal(what: string, entry: string): RpcError;
}

/**
 * The guard for `method` under the server's sandbox; throws -32600 when the sandbox is read-only.
 * `env`: the server's environment (its $TMPDIR is a writable root).
 */
export async function writeGuard(
  method: string,
  config: Config,
  env: NodeJS.ProcessEnv,
): Promise<WriteGuard> {
  const policy = serverSandboxPolicy(null, process.cwd(), config, env);
  if (policy.mode === "read-only")
    throw RpcError.invalidRequest(
      `${method} refused: the server's sandbox is read-only (sandbox_mode = "read-only"); start it with -c sandbox_mode="workspace-write" to write inside the workspace`,
    );
  const treeRefusal = (what: string, entry: string) =>
    RpcError.invalidRequest(
      `${method} refused: ${what} ${entry}, and ${PROTECTED_LIST} entries in the workspace are never created, changed or removed by fs/*`,
    );
  if (policy.mode === "danger-full-access")
    return {
      allows: () => true,
      refusal: (requested) => RpcError.invalidRequest(`${method} refused: ${requested}`),
      treeRefusal,
    };
  const [roots, protectedPaths] = await Promise.all([
    realWritableRoots(policy.writableRoots),
    realWritableRoots(policy.readOnlyPaths ?? []),
  ]);
  return {
    // The same judgement as apply_patch's (patch-paths.ts), so the two never drift apart.
    allows: (path) => pathsOutside([path], roots, protectedPaths).length === 0,
    refusal: (requested, realPath) => {
      const shown = requested === realPath ? realPath : `${requested} (which leads to ${realPath})`;
      return RpcError.invalidRequest(
        `${method} refused: ${shown} is outside the writable roots of the server's workspace-write sandbox (${roots.join(", ")}; ${PROTECTED_LIST} entries and the tscodex home stay read-only)`,
      );
    },
    treeRefusal,
  };
}

/** Whether `name`, one path component, is an entry fs/* leaves alone inside a writable root. */
export function isProtectedName(name: string): boolean {
  return PROTECTED_NAMES.includes(name.toLowerCase());
}
