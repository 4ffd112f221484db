/**
 * `[permissions.NAME]` tables (Codex's permission profiles) as config.toml spells them: the
 * shapes only. What the values mean (path forms, subpaths, globs, `extends`) is checked by
 * permission-profile-parse.ts once the layers are merged. Wrong values are worded as Codex's
 * config loader words them (`unknown variant `bogus`, expected `allow` or `deny``).
 */
import { z } from "zod";

const ACCESS = "one of `read`, `write`, `deny`";
const ACTION = "`allow` or `deny`";

function typeName(value: unknown): string {
  if (Array.isArray(value)) return "sequence";
  if (value !== null && typeof value === "object") return "map";
  return `${typeof value} \`${String(value)}\``;
}

/** serde's wording: `unknown variant `x`, expected ...` for a string, `invalid type` otherwise. */
function variantError(expected: string) {
  return (issue: { input?: unknown }) =>
    typeof issue.input === "string"
      ? `unknown variant \`${issue.input}\`, expected ${expected}`
      : `invalid type: ${typeName(issue.input)}, expected ${expected}`;
}

const fsAccess = z.enum(["read", "write", "deny"], { error: variantError(ACCESS) });
const ruleAction = z.enum(["allow", "deny"], { error: variantError(ACTION) });

/** A `[filesystem]` entry: an access, a table of subpaths, or the number `glob_scan_max_depth`. */
const filesystemEntry = z.union([fsAccess, z.record(z.string(), fsAccess), z.number()], {
  error: (issue: { input?: unknown }) => {
    const input = issue.input;
    if (input !== null && typeof input === "object" && !Array.isArray(input)) {
      const bad = Object.entries(input).find(([, value]) => !fsAccess.safeParse(value).success);
      if (bad) return `"${bad[0]}": ${variantError(ACCESS)({ input: bad[1] })}`;
    }
    return variantError(`${ACCESS} or a table of subpaths`)({ input });
  },
});

export const permissionNetworkSchema = z.looseObject({
  enabled: z.boolean().optional(),
  mode: z.enum(["limited", "full"], { error: variantError("`limited` or `full`") }).optional(),
  allow_local_binding: z.boolean().optional(),
  domains: z.record(z.string(), ruleAction).optional(),
  unix_sockets: z.record(z.string(), ruleAction).optional(),
  // Codex's keys tscodex accepts without honouring them (a warning names each one).
  proxy_url: z.string().optional(),
  socks_url: z.string().optional(),
  enable_socks5: z.boolean().optional(),
  enable_socks5_udp: z.boolean().optional(),
  allow_upstream_proxy: z.boolean().optional(),
  dangerously_allow_non_loopback_proxy: z.boolean().optional(),
  dangerously_allow_all_unix_sockets: z.boolean().optional(),
});

export const permissionProfileSchema = z.looseObject({
  /** Shown by `permissionProfile/list`; not inherited through `extends`. */
  description: z.string().optional(),
  /** `:read-only`, `:workspace` or another named profile. */
  extends: z.string().optional(),
  /** `"<abs or ~/ path>" = true | false`: roots joined to the runtime's (the cwd). */
  workspace_roots: z.record(z.string(), z.boolean()).optional(),
  /** `"<path>" = "read" | "write" | "deny"`, `"<path>" = { "<subpath>" = ... }`, `glob_scan_max_depth`. */
  filesystem: z.record(z.string(), filesystemEntry).optional(),
  network: permissionNetworkSchema.optional(),
});

export type PermissionProfileTable = z.infer<typeof permissionProfileSchema>;
export type PermissionNetworkTable = z.infer<typeof permissionNetworkSchema>;
