/**
 * Where a client's `fs/*` request may write. The client acts as the user (Codex's model): fs/*
 * is its own file access, not the agent's, so the server's sandbox mode plays no part. Without
 * requirements it writes wherever the server's user can; with requirements.toml, inside the
 * ceiling's reach (config/requirements.ts fsWriteCeiling): nowhere when only read-only is
 * allowed, the workspace-write roots (the server's cwd, writable_roots, /tmp, $TMPDIR) when
 * that is the widest, anywhere when full access is. Everywhere and always, what decides later
 * runs stays read-only: every `.git`, `.codex`, `.agents` and `.tscodex` entry (at any depth, in
 * any case) and the tscodex home (its config, rules and requirements). Paths are judged as real
 * paths (real-target.ts resolves them), so neither `..` nor a symlink, the last component's
 * included, reaches a path that is refused.
 */

import type { Config } from "../../config/load.js";
import { fsWriteCeiling } from "../../config/requirements.js";
import { pathsOutside, realWritableRoots } from "../../policy/patch-paths.js";
import { GUARDED_NAMES, isWithin } from "../../policy/sandbox/layout.js";
import { RpcError } from "./protocol/jsonrpc.js";
import { serverSandboxPolicy } from "./server-sandbox.js";

/**
 * Entry names fs/* never creates, changes or removes, at any depth and in any case: the names
 * no sandboxed command may create either (layout.ts).
 */
export const PROTECTED_NAMES: readonly string[] = GUARDED_NAMES;

const PROTECTED_LIST = `${PROTECTED_NAMES.slice(0, -1).join(", ")} and ${PROTECTED_NAMES.at(-1)}`;

/** What one fs/* request may write, decided once per request. */
export interface WriteGuard {
  /** Whether `realPath` (absolute, every component resolved) may be created, changed or removed. */
  allows(realPath: string): boolean;
  /** -32600 for `requested`, which resolved to `realPath`, a path `allows` refused. */
  refusal(requested: string, realPath: string): RpcError;
  /** -32600 for a tree operation that would touch `entry`, a path `allows` refused. */
  treeRefusal(what: string, entry: string): RpcError;
}

/**
 * The guard for `method` under the server's requirements; throws -32600 when they allow no
 * write at all. `env`: the server's environment (its $TMPDIR is a workspace-write root).
 */
export async function writeGuard(
  method: string,
  config: Config,
  env: NodeJS.ProcessEnv,
): Promise<WriteGuard> {
  const { reach, because } = fsWriteCeiling(config.requirements);
  if (reach === "none")
    throw RpcError.invalidRequest(
      `${method} refused: requirements.toml allows no writes (${because}); only read-only access is allowed`,
    );
  const workspace =
    reach === "workspace"
      ? serverSandboxPolicy({ type: "workspaceWrite" }, process.cwd(), config, env).writableRoots
      : ["/"];
  const [roots, protectedPaths] = await Promise.all([
    realWritableRoots(workspace),
    realWritableRoots([config.home]),
  ]);
  // A path inside a root was refused for a protected entry on its way (or the home).
  const where = (path: string) =>
    roots.some((root) => isWithin(path, root))
      ? "inside a protected entry"
      : `outside the writable roots allowed by requirements.toml (${because}): ${roots.join(", ")}`;
  return {
    // The same judgement as apply_patch's (patch-paths.ts), so the two never drift apart.
    allows: (path) => pathsOutside([path], roots, protectedPaths).length === 0,
    refusal: (requested, realPath) => {
      const shown = requested === realPath ? realPath : `${requested} (which leads to ${realPath})`;
      return RpcError.invalidRequest(
        `${method} refused: ${shown} is ${where(realPath)}; ${PROTECTED_LIST} entries and the tscodex home (${config.home}) are never written by fs/*`,
      );
    },
    treeRefusal: (what, entry) =>
      RpcError.invalidRequest(
        `${method} refused: ${what} ${entry}, and ${PROTECTED_LIST} entries and the tscodex home are never created, changed or removed by fs/*`,
      ),
  };
}

/** Whether `name`, one path component, is an entry fs/* leaves alone. */
export function isProtectedName(name: string): boolean {
  return PROTECTED_NAMES.includes(name.toLowerCase());
}
