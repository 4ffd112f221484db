/**
 * Whether the server's sandbox lets a client's `fs/*` request write a path: read-only refuses
 * every write; workspace-write allows the writable roots (the server's cwd, writable_roots,
 * /tmp, $TMPDIR) minus what stays read-only inside them (`.git`, `.codex`, the tscodex home),
 * compared as real paths so neither `..` nor a symlink reaches out; danger-full-access allows
 * all. The same rules as the agent's patches (policy/patch-paths.ts).
 */

import { approvalPaths } from "../../apply-patch/real-paths.js";
import type { Config } from "../../config/load.js";
import { pathsOutside, realWritableRoots } from "../../policy/patch-paths.js";
import { RpcError } from "./protocol/jsonrpc.js";
import { serverSandboxPolicy } from "./server-sandbox.js";

/**
 * Throws -32600 naming the rule when `method` may not write `paths` (absolute); `env`: the
 * server's environment (its $TMPDIR is a writable root).
 */
export async function checkWritable(
  method: string,
  paths: readonly string[],
  config: Config,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const policy = serverSandboxPolicy(null, process.cwd(), config, env);
  if (policy.mode === "danger-full-access") return;
  if (policy.mode === "read-only")
    throw RpcError.invalidRequest(
      `${method} refused: the server's sandbox is read-only (sandbox_mode = "read-only"); start it with -c sandbox_mode="workspace-write" to write inside the workspace`,
    );
  const [roots, protectedPaths, real] = await Promise.all([
    realWritableRoots(policy.writableRoots),
    realWritableRoots(policy.readOnlyPaths ?? []),
    approvalPaths({ touchedPaths: [...paths] }),
  ]);
  const outside = pathsOutside(real, roots, protectedPaths);
  if (outside.length === 0) return;
  throw RpcError.invalidRequest(
    `${method} refused: ${outside.join(", ")} is outside the writable roots of the server's workspace-write sandbox (${roots.join(", ")}; .git, .codex and the tscodex home stay read-only)`,
  );
}
