/** Wraps a command line in the sandbox backend that enforces a policy. */
import { bwrapArgv } from "./bwrap.js";
import { containCommand, warnUncontained } from "./contain.js";
import {
  bwrapBackendStatus,
  detectSandboxBackend,
  landlockBackendStatus,
  sandboxHelperPath,
} from "./detect.js";
import { deniedFilePlaceholder, type RuleLayout, resolveRuleLayout } from "./fs-rules.js";
import { HELPER_MAX_PATHS, landlockArgv, type SocketRules, seccompOnlyArgv } from "./landlock.js";
import { resolveLayout } from "./layout.js";
import {
  type PreparedCommand,
  type SandboxBackendChoice,
  type SandboxPolicy,
  SandboxUnavailableError,
} from "./types.js";

/** Options of prepareSandboxedCommand. */
export interface PrepareOptions {
  /** "auto" (default): bwrap when it works, else the Landlock helper. */
  backend?: SandboxBackendChoice;
}

const FIX = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), or choose danger-full-access";

/**
 * Wrap argv so it runs under the policy; spawn the result with the same cwd and env.
 * danger-full-access only contains argv (backend "none"; see contain.ts). Throws SandboxUnavailableError,
 * naming the fix, when no backend works: never runs a command silently unsandboxed.
 * Per call it only stats the writable roots; backend detection is cached.
 *
 * `policy.fsRules`, when present, decides the file system alone (writableRoots and the mode's
 * layout are ignored); `policy.proxyRoutes` gives the command a network namespace whose only way
 * out is the routes, in any mode but danger-full-access. A rule or route the backend cannot
 * enforce throws SandboxUnavailableError naming it, before anything runs.
 */
export async function prepareSandboxedCommand(
  argv: string[],
  cwd: string,
  policy: SandboxPolicy,
  options: PrepareOptions = {},
): Promise<PreparedCommand> {
  if (policy.mode === "danger-full-access") return { argv: await containCommand(argv), backend: "none" };
  const choice = options.backend ?? "auto";
  const backend = choice === "auto" ? await detectSandboxBackend() : choice;
  if (backend === "none") throw new SandboxUnavailableError(await noBackendMessage(policy));

  const rules = policy.fsRules ? await resolveRuleLayout(policy.fsRules, policy) : undefined;
  const layout = rules ? { writable: [], readOnly: [] } : await resolveLayout(policy);
  const proxyRoutes = policy.proxyRoutes ?? [];
  // Only workspace-write may have network: a read-only policy that carries a stale flag (an
  // earlier turn's, or config's sandbox_workspace_write) still gets none. Proxy routes win.
  // A sandbox mode's network is workspace-write's alone: a read-only policy carrying a stale flag
  // still gets none. A profile (its rules given) may pair any filesystem with the host's network.
  const networkAccess =
    proxyRoutes.length === 0 &&
    policy.networkAccess &&
    (policy.mode === "workspace-write" || policy.fsRules !== undefined);
  const sockets: SocketRules = {
    networkAccess,
    allowUnixSockets: policy.allowUnixSockets ?? false,
    ...(proxyRoutes.length > 0 ? { proxyRoutes } : {}),
  };
  if (backend === "bwrap") {
    const status = await bwrapBackendStatus();
    if (!status.available) {
      throw new SandboxUnavailableError(`cannot run the ${policy.mode} sandbox: ${status.reason}; ${FIX}`);
    }
    // The helper runs inside: its .git guard (no new `.git`, `.codex`, `.agents` or `.tscodex`
    // anywhere; bwrap could only protect a missing one by making it on the host) and its
    // seccomp layer (bwrap's empty network namespace does not stop unix sockets on the host's file system).
    const helper = await sandboxHelperPath();
    if (!helper) {
      throw new SandboxUnavailableError(
        `cannot run the ${policy.mode} sandbox: bubblewrap needs the helper inside (native/build/tscodex-sandbox; \`npm run build\` compiles it with cc) to keep commands from creating .git or .codex and reaching unix sockets; or choose danger-full-access`,
      );
    }
    const inner = seccompOnlyArgv(helper, argv, sockets);
    const deniedFile = rules && hasDeniedFile(rules) ? await deniedFilePlaceholder() : undefined;
    const socketPaths = proxyRoutes.map((route) => route.socketPath);
    const mounts = { layout, rules, deniedFile, networkAccess, sockets: socketPaths, helper };
    return { argv: bwrapArgv(status.path, inner, cwd, mounts), backend };
  }
  const status = await landlockBackendStatus();
  if (!status.available) {
    throw new SandboxUnavailableError(
      `cannot run the ${policy.mode} sandbox with the Landlock helper: ${status.reason}; ${FIX}`,
    );
  }
  const refusal = landlockRefusal(status.netNamespace, rules, proxyRoutes.length > 0);
  if (refusal) throw new SandboxUnavailableError(`${refusal}; ${FIX}`);
  if (!status.pidNamespace) warnUncontained("the Landlock helper cannot create a PID namespace");
  return { argv: landlockArgv(status.path, argv, layout, sockets, status.pidNamespace, rules), backend };
}

/** Why the Landlock helper cannot enforce these rules or routes here; null when it can. */
function landlockRefusal(
  netNamespace: boolean,
  rules: RuleLayout | undefined,
  routes: boolean,
): string | null {
  if (routes && !netNamespace) {
    return "network domain rules need a network namespace that reaches only the proxy; the Landlock helper cannot create one here (user namespaces disabled?)";
  }
  if (rules?.root === "write") {
    return "the filesystem rule `/ = write` cannot be enforced by the Landlock helper (it keeps the host's mounts read-only)";
  }
  // The rules and /dev/shm.
  if (rules && rules.mounts.length + 1 > HELPER_MAX_PATHS) {
    return `${rules.mounts.length} filesystem rules (after glob expansion) exceed the Landlock helper's limit of ${HELPER_MAX_PATHS - 1}`;
  }
  return null;
}

function hasDeniedFile(rules: RuleLayout): boolean {
  return rules.mounts.some((mount) => mount.access === "deny" && !mount.directory);
}

async function noBackendMessage(policy: SandboxPolicy): Promise<string> {
  const [bwrap, landlock] = await Promise.all([bwrapBackendStatus(), landlockBackendStatus()]);
  const reasons = [bwrap, landlock].flatMap((status) => (status.available ? [] : [status.reason]));
  return `cannot run the ${policy.mode} sandbox: ${reasons.join("; ")}. To fix: ${FIX}`;
}
