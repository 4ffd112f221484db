/**
 * A wire sandbox policy (else the server's `sandbox_mode`) as the sandbox runtime's policy, rooted
 * at a cwd: fs/* takes its workspace-write roots under a workspace ceiling (fs-write-policy.ts).
 * Workspace-write means the given cwd (the server's for fs), `sandbox_workspace_write.
 * writable_roots`, /tmp and $TMPDIR (unless excluded); the tscodex home stays read-only inside
 * them, as for the agent's own commands.
 */
import { resolve } from "node:path";
import type { Config } from "../../config/load.js";
import type { SandboxPolicy as CoreSandboxPolicy } from "../../policy/sandbox/index.js";
import type { SandboxPolicy } from "./protocol/common.js";

/**
 * `policy` (else config's sandbox_mode) in the sandbox runtime's terms, rooted at `cwd`; `env`:
 * the server's environment (its $TMPDIR).
 */
export function serverSandboxPolicy(
  policy: SandboxPolicy | null | undefined,
  cwd: string,
  config: Config,
  env: NodeJS.ProcessEnv,
): CoreSandboxPolicy {
  const type = policy?.type ?? modeType(config.sandboxMode);
  const allowUnixSockets = config.sandboxAllowUnixSockets;
  if (type === "dangerFullAccess" || type === "externalSandbox")
    return { mode: "danger-full-access", writableRoots: [], networkAccess: true };
  if (type === "readOnly")
    return { mode: "read-only", writableRoots: [], networkAccess: false, allowUnixSockets };
  const own = policy?.type === "workspaceWrite" ? policy : null;
  const sww = config.sandboxWorkspaceWrite;
  const roots = [cwd, ...(own?.writableRoots ?? sww.writableRoots).map((root) => resolve(root))];
  if (!(own?.excludeSlashTmp ?? sww.excludeSlashTmp)) roots.push("/tmp");
  const tmpdir = env.TMPDIR;
  if (!(own?.excludeTmpdirEnvVar ?? sww.excludeTmpdirEnvVar) && tmpdir) roots.push(resolve(tmpdir));
  return {
    mode: "workspace-write",
    writableRoots: roots,
    networkAccess: own?.networkAccess ?? sww.networkAccess,
    // The home's config and rules decide later runs' policy: never writable from inside.
    readOnlyPaths: [config.home],
    allowUnixSockets,
  };
}

function modeType(mode: Config["sandboxMode"]): SandboxPolicy["type"] {
  return mode === "danger-full-access"
    ? "dangerFullAccess"
    : mode === "read-only"
      ? "readOnly"
      : "workspaceWrite";
}
