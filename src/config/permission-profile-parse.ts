/**
 * `[permissions.*]` (layers merged, shapes checked by the schema) → PermissionProfiles: path
 * forms checked and joined (`[filesystem.":workspace_roots"] "secret"` → `:workspace_roots/secret`),
 * domain patterns normalised, and a warning for each Codex key tscodex accepts without honouring.
 * Inheritance (`extends`) is resolved later, by permission-profiles.ts.
 */
import type { FsAccess } from "../protocol/permissions.js";
import { ConfigError } from "./errors.js";
import type { PermissionNetworkTable, PermissionProfileTable } from "./permission-profile-schema.js";

export type RuleAction = "allow" | "deny";

/** A profile's `[network]`: only the keys it sets (a child's keys override its parent's). */
export interface PermissionNetworkConfig {
  enabled?: boolean;
  mode?: "limited" | "full";
  allowLocalBinding?: boolean;
  /** Normalised pattern → action. Present, even empty, means domain rules: the managed proxy. */
  domains?: Record<string, RuleAction>;
  /** Absolute socket path → action. */
  unixSockets?: Record<string, RuleAction>;
}

/** One `[permissions.NAME]` table, checked; paths still symbolic (`~/` unexpanded). */
export interface PermissionProfileConfig {
  description: string | null;
  /** The declared parent: `:read-only`, `:workspace` or a named profile; null when none. */
  extends: string | null;
  /** `[workspace_roots]`: absolute or `~/` path → on (false turns off a parent's root). */
  workspaceRoots: Record<string, boolean>;
  /** `[filesystem]` rules by path: `:root`, `:workspace_roots/secret`, `/abs`, `~/x`, globs. */
  filesystem: Record<string, FsAccess>;
  /** `glob_scan_max_depth` when this table sets it. */
  globScanMaxDepth: number | null;
  network: PermissionNetworkConfig;
}

/** The named profiles of the merged config, by name (built-ins are not listed here). */
export type PermissionProfiles = Record<string, PermissionProfileConfig>;

/** The special path forms; all but `:workspace_roots` name one directory and take only `.`. */
export const SPECIAL_PATHS = [":root", ":minimal", ":tmpdir", ":slash_tmp", ":workspace_roots"] as const;
const DOT_ONLY: ReadonlySet<string> = new Set([":root", ":minimal", ":tmpdir", ":slash_tmp"]);

/** Codex's network keys tscodex accepts but does not act on, and why. */
const UNHONOURED_NETWORK_KEYS: Record<string, string> = {
  proxy_url: "the managed proxy listens on an ephemeral loopback port of its own",
  socks_url: "the managed proxy listens on an ephemeral loopback port of its own",
  enable_socks5: "whether SOCKS5 is offered is the managed proxy's decision",
  enable_socks5_udp: "whether SOCKS5 UDP is offered is the managed proxy's decision",
  allow_upstream_proxy: "the managed proxy connects to hosts directly",
  dangerously_allow_non_loopback_proxy: "the managed proxy only ever listens on loopback",
  dangerously_allow_all_unix_sockets: "only [network.unix_sockets] entries open unix sockets",
};

const ACCESS_RANK: Record<FsAccess, number> = { read: 0, write: 1, deny: 2 };

/** Of two accesses for the same path, the one that wins: deny > write > read. */
export function strongerAccess(a: FsAccess, b: FsAccess): FsAccess {
  return ACCESS_RANK[a] >= ACCESS_RANK[b] ? a : b;
}

/** A path with `*`, `?` or `[` matches files by pattern. */
export function isGlob(path: string): boolean {
  return /[*?[]/.test(path);
}

/**
 * The checked profiles and the warnings worth a line (keys accepted, not honoured). Throws
 * ConfigError naming `source` (the config file) and the key for a value the schema allowed but
 * that means nothing here.
 */
export function parsePermissionProfiles(
  tables: Record<string, PermissionProfileTable> | undefined,
  source: string,
): { profiles: PermissionProfiles; warnings: string[] } {
  const profiles: PermissionProfiles = Object.create(null);
  const warnings: string[] = [];
  for (const [name, table] of Object.entries(tables ?? {})) {
    const at = `permissions.${key(name)}`;
    if (name.startsWith(":"))
      throw new ConfigError(
        `${source}: ${at}: profile names starting with \`:\` are reserved for built-in profiles`,
      );
    const problem = (where: string, message: string) => new ConfigError(`${source}: ${where}: ${message}`);
    const { filesystem, globScanMaxDepth } = parseFilesystem(
      table.filesystem ?? {},
      `${at}.filesystem`,
      problem,
    );
    profiles[name] = {
      description: table.description ?? null,
      extends: table.extends ?? null,
      workspaceRoots: parseWorkspaceRoots(table.workspace_roots ?? {}, `${at}.workspace_roots`, problem),
      filesystem,
      globScanMaxDepth,
      network: parseNetwork(table.network ?? {}, `${at}.network`, problem),
    };
    for (const [field, reason] of Object.entries(UNHONOURED_NETWORK_KEYS))
      if (table.network && Object.hasOwn(table.network, field))
        warnings.push(`${source}: ${at}.network.${field} is accepted but not honoured: ${reason}`);
  }
  return { profiles, warnings };
}

type Problem = (where: string, message: string) => ConfigError;

function parseFilesystem(
  table: Record<string, unknown>,
  at: string,
  problem: Problem,
): { filesystem: Record<string, FsAccess>; globScanMaxDepth: number | null } {
  const filesystem: Record<string, FsAccess> = Object.create(null);
  let globScanMaxDepth: number | null = null;
  const add = (path: string, access: FsAccess, where: string) => {
    if (isGlob(path) && access !== "deny")
      throw problem(
        where,
        `a glob path only takes "deny" (deny-read of what matches); "${access}" globs are refused`,
      );
    const before = filesystem[path];
    filesystem[path] = before ? strongerAccess(before, access) : access;
  };
  for (const [name, value] of Object.entries(table)) {
    const where = `${at}.${key(name)}`;
    if (name === "glob_scan_max_depth") {
      if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
        throw problem(where, "must be a whole number of at least 1");
      globScanMaxDepth = value;
      continue;
    }
    const base = basePath(name, where, problem);
    if (typeof value === "string") add(base, value as FsAccess, where);
    else if (value !== null && typeof value === "object")
      for (const [sub, access] of Object.entries(value))
        add(
          joinSubpath(base, sub, `${where}.${key(sub)}`, problem),
          access as FsAccess,
          `${where}.${key(sub)}`,
        );
    else throw problem(where, "expected one of `read`, `write`, `deny` or a table of subpaths");
  }
  return { filesystem, globScanMaxDepth };
}

/** A `[filesystem]` key: a special form, an absolute path or `~/path`, without `.`/`..`. */
function basePath(name: string, where: string, problem: Problem): string {
  if (name.startsWith(":")) {
    if ((SPECIAL_PATHS as readonly string[]).includes(name)) return name;
    throw problem(where, `unknown special path \`${name}\` (known: ${SPECIAL_PATHS.join(", ")})`);
  }
  if (name === "~" || name.startsWith("~/")) return joinParts("~", components(name.slice(1), where, problem));
  if (name.startsWith("/")) return joinParts("/", components(name, where, problem));
  throw problem(
    where,
    `\`${name}\` is not a path this table takes: use ${SPECIAL_PATHS.join(", ")}, an absolute path or ~/path`,
  );
}

/** `base` + a relative subpath (`.` is the base itself; the one-directory forms take only `.`). */
function joinSubpath(base: string, sub: string, where: string, problem: Problem): string {
  if (sub === ".") return base;
  if (DOT_ONLY.has(base)) throw problem(where, `\`${base}\` takes only "." as a subpath`);
  if (sub.startsWith("/") || sub === "~" || sub.startsWith("~/"))
    throw problem(where, "a subpath is relative to its table's path");
  return joinParts(base, components(sub, where, problem));
}

function components(path: string, where: string, problem: Problem): string[] {
  const parts = path.split("/").filter((part) => part !== "");
  if (parts.some((part) => part === "." || part === ".."))
    throw problem(where, "`.` and `..` components are not allowed in a path");
  return parts;
}

function joinParts(base: string, parts: string[]): string {
  if (parts.length === 0) return base;
  return base.endsWith("/") ? `${base}${parts.join("/")}` : `${base}/${parts.join("/")}`;
}

function parseWorkspaceRoots(
  table: Record<string, boolean>,
  at: string,
  problem: Problem,
): Record<string, boolean> {
  const roots: Record<string, boolean> = Object.create(null);
  for (const [name, on] of Object.entries(table)) {
    const where = `${at}.${key(name)}`;
    if (
      name.startsWith(":") ||
      isGlob(name) ||
      !(name.startsWith("/") || name === "~" || name.startsWith("~/"))
    )
      throw problem(where, "a workspace root is an absolute path or ~/path");
    roots[basePath(name, where, problem)] = on;
  }
  return roots;
}

function parseNetwork(table: PermissionNetworkTable, at: string, problem: Problem): PermissionNetworkConfig {
  const network: PermissionNetworkConfig = {};
  if (table.enabled !== undefined) network.enabled = table.enabled;
  if (table.mode !== undefined) network.mode = table.mode;
  if (table.allow_local_binding !== undefined) network.allowLocalBinding = table.allow_local_binding;
  if (table.domains !== undefined) {
    const domains: Record<string, RuleAction> = Object.create(null);
    for (const [pattern, action] of Object.entries(table.domains)) {
      const normal = domainPattern(pattern, action, `${at}.domains.${key(pattern)}`, problem);
      // Two spellings of one pattern: deny wins, as it does between patterns.
      domains[normal] = domains[normal] === "deny" ? "deny" : action;
    }
    network.domains = domains;
  }
  if (table.unix_sockets !== undefined) {
    const sockets: Record<string, RuleAction> = Object.create(null);
    for (const [path, action] of Object.entries(table.unix_sockets)) {
      const where = `${at}.unix_sockets.${key(path)}`;
      if (!path.startsWith("/")) throw problem(where, "a unix socket rule names an absolute path");
      sockets[joinParts("/", components(path, where, problem))] = action;
    }
    network.unixSockets = sockets;
  }
  return network;
}

/**
 * A domain pattern as the proxy matches it: trimmed, lower case, no trailing dot, no port or
 * IPv6 brackets. `host`, `*.host` (subdomains), `**.host` (apex and subdomains), `*` (allow only).
 */
export function domainPattern(raw: string, action: RuleAction, where: string, problem: Problem): string {
  let pattern = raw.trim().toLowerCase();
  const bracketed = /^\[([^\]]*)\](?::\d+)?$/.exec(pattern);
  if (bracketed) pattern = bracketed[1] ?? "";
  else if (/^[^:]+:\d+$/.test(pattern)) pattern = pattern.replace(/:\d+$/, "");
  pattern = pattern.replace(/\.$/, "");
  if (pattern === "*") {
    if (action === "deny")
      throw problem(where, "`*` can only allow; to block every host, leave out the allow entries");
    return pattern;
  }
  const host = pattern.replace(/^\*\*?\./, "");
  if (host === "" || host.includes("*") || /[\s/]/.test(host))
    throw problem(where, "a domain pattern is `host`, `*.host`, `**.host` or `*`");
  return pattern;
}

/** A key as TOML writes it in a dotted path: bare when it can be, quoted otherwise. */
function key(name: string): string {
  return /^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name);
}
