/**
 * The permissions value → what the backend and the managed proxy enforce for one command (the
 * third converter of DESIGN.md "One permissions value"): the filesystem rules resolved against
 * the command's cwd and $TMPDIR, and for a proxied network a route of the process's proxy whose
 * sockets the sandbox's namespace reaches at Codex's default ports, with Codex's proxy
 * variables for the child. Every front-end that runs a command (tools, `tscodex sandbox`,
 * `command/exec`) goes through here.
 */
import { homedir } from "node:os";
import { resolveFilesystemRules } from "../../config/fs-paths.js";
import type { ProxyBlock } from "../../network-proxy/index.js";
import { writablePaths } from "../../protocol/permission-paths.js";
import type { Permissions } from "../../protocol/permissions.js";
import { type SandboxPolicy, SandboxUnavailableError } from "./types.js";

/** Where the command finds the proxy inside its network namespace: Codex's default proxy_url and socks_url ports. */
export const PROXY_HTTP_PORT = 3128;
export const PROXY_SOCKS_PORT = 8081;

export interface CommandSandboxContext {
  cwd: string;
  /** The $TMPDIR the command gets (`:tmpdir`); null when unset. */
  tmpdir: string | null;
  /** Kept read-only in every sandbox (the tscodex home). */
  protectedPaths: readonly string[];
  /** Config `sandbox_allow_unix_sockets`. */
  allowUnixSockets: boolean;
  /** Told of every request the proxy refuses for this command. */
  onBlock?: ((block: ProxyBlock) => void) | undefined;
  /** Asked about a host no allow entry matches (an approval question); absent: blocked. */
  allowMiss?: ((block: ProxyBlock) => Promise<boolean>) | undefined;
}

export interface CommandSandbox {
  /** What the backend enforces; null for danger-full-access (contained, not sandboxed). */
  policy: SandboxPolicy | null;
  /** Variables to set over the command's environment (the proxy's); empty without a proxy. */
  env: Readonly<Record<string, string>>;
  /** Closes the command's proxy route: call once its process has ended. Idempotent. */
  release(): Promise<void>;
}

const NOTHING_TO_RELEASE = async (): Promise<void> => {};

export async function openCommandSandbox(
  permissions: Permissions,
  ctx: CommandSandboxContext,
): Promise<CommandSandbox> {
  if (permissions.kind === "danger-full-access")
    return { policy: null, env: {}, release: NOTHING_TO_RELEASE };
  const { network } = permissions;
  const base: SandboxPolicy = {
    mode: permissions.legacyMode,
    writableRoots: writablePaths(permissions, { cwd: ctx.cwd, tmpdir: ctx.tmpdir }),
    networkAccess: network.kind === "full",
    readOnlyPaths: ctx.protectedPaths,
    allowUnixSockets: ctx.allowUnixSockets,
  };
  // A profile's rules go to the backend as they are; a sandbox mode's are what the mode's
  // layout already is, so legacy modes keep the layout they always had.
  if (permissions.profile !== null)
    base.fsRules = await resolveFilesystemRules(permissions.filesystem, {
      cwd: ctx.cwd,
      tmpdir: ctx.tmpdir,
      home: homedir(),
    });
  if (network.kind !== "proxied") return { policy: base, env: {}, release: NOTHING_TO_RELEASE };

  refuseUnenforceableSockets(network.unixSockets, ctx.allowUnixSockets);
  // The proxy is loaded only by commands that need it.
  const { proxyEnvironment, sharedNetworkProxy } = await import("../../network-proxy/index.js");
  const proxy = await sharedNetworkProxy();
  const route = await proxy.openRoute(
    {
      mode: network.mode,
      domains: network.domains,
      allowLocalBinding: network.allowLocalBinding,
      unixSockets: [],
    },
    {
      ...(ctx.onBlock ? { onBlock: ctx.onBlock } : {}),
      ...(ctx.allowMiss ? { allowMiss: ctx.allowMiss } : {}),
    },
  );
  return {
    policy: {
      ...base,
      networkAccess: false,
      proxyRoutes: [
        { port: PROXY_HTTP_PORT, socketPath: route.http.socketPath },
        { port: PROXY_SOCKS_PORT, socketPath: route.socks.socketPath },
      ],
    },
    env: proxyEnvironment(
      { httpPort: PROXY_HTTP_PORT, socksPort: PROXY_SOCKS_PORT },
      network.allowLocalBinding,
    ),
    release: once(() => route.close()),
  };
}

/**
 * Per-path unix socket rules cannot be enforced here: the sandbox allows every unix socket
 * (`sandbox_allow_unix_sockets`) or none. A rule that would need more is refused, never widened.
 */
function refuseUnenforceableSockets(
  rules: readonly { path: string; action: "allow" | "deny" }[],
  allowAll: boolean,
): void {
  const rule = rules.find((entry) => (entry.action === "allow" ? !allowAll : allowAll));
  if (!rule) return;
  throw new SandboxUnavailableError(
    `network.unix_sockets "${rule.path}" = "${rule.action}" cannot be enforced: the sandbox allows every unix socket (sandbox_allow_unix_sockets = true) or none, not single paths`,
  );
}

function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => {
    closing ??= close();
    return closing;
  };
}
