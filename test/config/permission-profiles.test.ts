import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type LoadOptions, loadConfig } from "../../src/config/load.js";
import { parseOverride } from "../../src/config/overrides.js";
import {
  configuredPermissions,
  listPermissionProfiles,
  PermissionProfileError,
  resolvePermissionProfile,
} from "../../src/config/permission-profiles.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let home: TempDir;
afterEach(() => home?.cleanup());

async function load(toml: string, options: Omit<LoadOptions, "home"> = {}) {
  home = await tmpdir();
  await writeFile(join(home.path, "config.toml"), toml);
  return loadConfig({ env: {}, ...options, home: home.path });
}

async function loadError(toml: string, options: Omit<LoadOptions, "home"> = {}): Promise<string> {
  const error = await load(toml, options).then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof Error)) throw new Error("the config loaded");
  expect(error.name).toMatch(/ConfigError|PermissionProfileError/);
  return error.message;
}

const WEB = `
default_permissions = "web"
[permissions.web]
description = "web access"
extends = ":workspace"
[permissions.web.filesystem.":workspace_roots"]
"secret" = "deny"
[permissions.web.network]
enabled = true
allow_local_binding = true
[permissions.web.network.domains]
"Allowed.Example." = "allow"
"*.example.com" = "allow"
"bad.example.com" = "deny"
`;

describe("permission profiles: parsing and resolution", () => {
  it("resolves a profile extending :workspace: its rules on top of the parent's, network through the proxy", async () => {
    const config = await load(WEB);
    expect(config.defaultPermissions).toBe("web");
    expect(config.warnings).toEqual([]);
    const value = resolvePermissionProfile(config.permissionProfiles, "web", "/home/u");
    expect(value).toEqual({
      kind: "sandboxed",
      profile: { id: "web", extends: ":workspace" },
      legacyMode: "workspace-write",
      filesystem: {
        rules: [
          { path: ":root", access: "read" },
          { path: ":workspace_roots", access: "write" },
          { path: ":slash_tmp", access: "write" },
          { path: ":tmpdir", access: "write" },
          { path: ":workspace_roots/secret", access: "deny" },
        ],
        workspaceRoots: [],
        globScanMaxDepth: 8,
      },
      network: {
        kind: "proxied",
        mode: "full",
        domains: [
          { pattern: "allowed.example", action: "allow" },
          { pattern: "*.example.com", action: "allow" },
          { pattern: "bad.example.com", action: "deny" },
        ],
        allowLocalBinding: true,
        unixSockets: [],
      },
    });
  });

  it("resolves the built-ins with their ids and no parent", async () => {
    const config = await load("");
    const readOnly = resolvePermissionProfile(config.permissionProfiles, ":read-only", "/h");
    expect(readOnly).toMatchObject({
      kind: "sandboxed",
      legacyMode: "read-only",
      profile: { id: ":read-only", extends: null },
      network: { kind: "none" },
    });
    const workspace = resolvePermissionProfile(config.permissionProfiles, ":workspace", "/h");
    expect(workspace).toMatchObject({
      legacyMode: "workspace-write",
      profile: { id: ":workspace", extends: null },
    });
    expect(resolvePermissionProfile(config.permissionProfiles, ":danger-full-access", "/h")).toEqual({
      kind: "danger-full-access",
      profile: { id: ":danger-full-access", extends: null },
    });
  });

  it("network: off by default, host network when enabled without domains, proxied with a domains table or limited mode", async () => {
    const config = await load(`
default_permissions = "off"
[permissions.off]
extends = ":read-only"
[permissions.host]
extends = ":read-only"
network = { enabled = true }
[permissions.empty]
extends = ":read-only"
network = { enabled = true, domains = {} }
[permissions.limited]
extends = ":read-only"
network = { enabled = true, mode = "limited", unix_sockets = { "/run/x.sock" = "allow" } }
`);
    const network = (id: string) => {
      const value = resolvePermissionProfile(config.permissionProfiles, id, "/h");
      return value.kind === "sandboxed" ? value.network : null;
    };
    expect(network("off")).toEqual({ kind: "none" });
    expect(network("host")).toEqual({ kind: "full" });
    expect(network("empty")).toEqual({
      kind: "proxied",
      mode: "full",
      domains: [],
      allowLocalBinding: false,
      unixSockets: [],
    });
    expect(network("limited")).toEqual({
      kind: "proxied",
      mode: "limited",
      domains: [],
      allowLocalBinding: false,
      unixSockets: [{ path: "/run/x.sock", action: "allow" }],
    });
  });

  it("a child accumulates filesystem rules and roots, overrides network keys, merges domains, keeps its own description", async () => {
    const config = await load(`
default_permissions = "child"
[permissions.base]
description = "the base"
extends = ":read-only"
workspace_roots = { "/srv/a" = true, "/srv/b" = true }
[permissions.base.filesystem]
glob_scan_max_depth = 3
"/data" = "read"
"/data/private" = "deny"
[permissions.base.network]
enabled = true
mode = "limited"
domains = { "a.test" = "allow", "b.test" = "allow" }
[permissions.child]
extends = "base"
workspace_roots = { "/srv/b" = false, "~/proj" = true }
[permissions.child.filesystem]
"/data/private" = "read"
"~/notes" = "write"
[permissions.child.network]
mode = "full"
domains = { "b.test" = "deny", "c.test" = "allow" }
`);
    const value = resolvePermissionProfile(config.permissionProfiles, "child", "/home/u");
    if (value.kind !== "sandboxed") throw new Error("not sandboxed");
    expect(value.profile).toEqual({ id: "child", extends: "base" });
    expect(value.filesystem).toEqual({
      rules: [
        { path: ":root", access: "read" },
        { path: "/data", access: "read" },
        { path: "/data/private", access: "read" },
        { path: "/home/u/notes", access: "write" },
      ],
      workspaceRoots: ["/srv/a", "/home/u/proj"],
      globScanMaxDepth: 3,
    });
    expect(value.network).toEqual({
      kind: "proxied",
      mode: "full",
      domains: [
        { pattern: "a.test", action: "allow" },
        { pattern: "b.test", action: "deny" },
        { pattern: "c.test", action: "allow" },
      ],
      allowLocalBinding: false,
      unixSockets: [],
    });
    expect(listPermissionProfiles(config.permissionProfiles)).toEqual([
      { id: ":read-only", description: null },
      { id: ":workspace", description: null },
      { id: ":danger-full-access", description: null },
      { id: "base", description: "the base" },
      { id: "child", description: null },
    ]);
  });

  it("joins subpaths to their table's path and keeps equal paths at the strongest access", async () => {
    const config = await load(`
default_permissions = "p"
[permissions.p.filesystem]
":root" = "read"
"/opt/x/" = "read"
[permissions.p.filesystem."/opt/x"]
"." = "write"
"cache/tmp" = "deny"
[permissions.p.filesystem.":tmpdir"]
"." = "write"
`);
    const value = resolvePermissionProfile(config.permissionProfiles, "p", "/h");
    if (value.kind !== "sandboxed") throw new Error("not sandboxed");
    expect(value.filesystem.rules).toEqual([
      { path: ":root", access: "read" },
      { path: "/opt/x", access: "write" },
      { path: "/opt/x/cache/tmp", access: "deny" },
      { path: ":tmpdir", access: "write" },
    ]);
  });
});

describe("permission profiles: refusals at load (Codex's messages)", () => {
  it.each([
    [
      `default_permissions = "bar_bad"\n[permissions.bar_bad]\nextends = "ghost_parent"`,
      "permissions profile `bar_bad` extends undefined profile `ghost_parent`",
    ],
    [
      `default_permissions = "loop_a"\n[permissions.loop_a]\nextends = "loop_b"\n[permissions.loop_b]\nextends = "loop_a"`,
      "permissions profile inheritance cycle detected: loop_a -> loop_b -> loop_a",
    ],
    [
      `default_permissions = "x"\n[permissions.x]\nextends = ":danger-full-access"`,
      "permissions profile `x` cannot extend unsupported built-in profile `:danger-full-access`",
    ],
    [
      `default_permissions = "w"\n[permissions.w]\nextends = ":nosuchbuiltin"`,
      "permissions profile `w` cannot extend unsupported built-in profile `:nosuchbuiltin`",
    ],
    [
      `default_permissions = "nosuch"\n[permissions.other]\nextends = ":read-only"`,
      "default_permissions refers to undefined profile `nosuch`",
    ],
    [`default_permissions = ":nosuch"`, "default_permissions refers to undefined profile `:nosuch`"],
  ])("%s", async (toml, message) => {
    expect(await loadError(toml)).toBe(message);
  });

  it("refuses a bad profile that is not the default one too", async () => {
    expect(
      await loadError(
        `default_permissions = ":read-only"\n[permissions.a]\nextends = "b"\n[permissions.b]\nextends = "a"`,
      ),
    ).toBe("permissions profile inheritance cycle detected: a -> b -> a");
  });

  it("words a bad domain value as Codex does, naming the file and the key", async () => {
    const message = await loadError(`
default_permissions = "web"
[permissions.web.network.domains]
"x.test" = "bogus"
`);
    expect(message).toBe(
      `${join(home.path, "config.toml")}: key 'permissions.web.network.domains.x.test': unknown variant \`bogus\`, expected \`allow\` or \`deny\``,
    );
  });

  it.each([
    [
      `[permissions.p.filesystem]\n":root" = "bogus"`,
      "unknown variant `bogus`, expected one of `read`, `write`, `deny`",
    ],
    [`[permissions.p.filesystem.":workspace_roots"]\n"s" = "nope"`, '"s": unknown variant `nope`'],
    [`[permissions.p.filesystem]\n"relative/dir" = "read"`, "is not a path this table takes"],
    [`[permissions.p.filesystem]\n":home" = "read"`, "unknown special path `:home`"],
    [`[permissions.p.filesystem.":tmpdir"]\n"sub" = "write"`, '`:tmpdir` takes only "." as a subpath'],
    [
      `[permissions.p.filesystem.":workspace_roots"]\n"../up" = "read"`,
      "`.` and `..` components are not allowed",
    ],
    [`[permissions.p.filesystem.":workspace_roots"]\n"/abs" = "read"`, "a subpath is relative"],
    [`[permissions.p.filesystem.":workspace_roots"]\n"**/*.key" = "write"`, 'a glob path only takes "deny"'],
    [`[permissions.p.filesystem]\nglob_scan_max_depth = 0`, "must be a whole number of at least 1"],
    [`[permissions.p.workspace_roots]\n"rel" = true`, "a workspace root is an absolute path or ~/path"],
    [`[permissions.p.network.domains]\n"*" = "deny"`, "`*` can only allow"],
    [`[permissions.p.network.domains]\n"a*b.test" = "allow"`, "a domain pattern is"],
    [`[permissions.p.network]\nmode = "open"`, "unknown variant `open`, expected `limited` or `full`"],
    [`[permissions.":mine"]\nextends = ":read-only"`, "reserved for built-in profiles"],
  ])("refuses %s", async (toml, fragment) => {
    expect(await loadError(`default_permissions = ":read-only"\n${toml}`)).toContain(fragment);
  });
});

describe("permission profiles: warnings", () => {
  it("warns, naming each key, about Codex network keys it does not honour", async () => {
    const config = await load(`
default_permissions = "web"
[permissions.web]
extends = ":read-only"
[permissions.web.network]
enabled = true
proxy_url = "http://127.0.0.1:3128"
enable_socks5 = false
dangerously_allow_all_unix_sockets = true
[permissions.web.network.mitm.hooks.h]
host = "a.test"
`);
    expect(config.warnings).toContain(
      `${join(home.path, "config.toml")}: unknown key 'permissions.web.network.mitm' (ignored)`,
    );
    const lines = config.warnings.filter((line) => line.includes("not honoured"));
    expect(lines.map((line) => /network\.(\w+) is accepted/.exec(line)?.[1])).toEqual([
      "proxy_url",
      "enable_socks5",
      "dangerously_allow_all_unix_sockets",
    ]);
  });

  it("warns that domain rules do nothing while network is off, and about a profile that reads nothing", async () => {
    const config = await load(`
default_permissions = "quiet"
[permissions.quiet]
extends = ":workspace"
network.domains = { "a.test" = "allow" }
[permissions.blind]
network.enabled = false
`);
    expect(config.warnings.join("\n")).toContain(
      "permissions profile `quiet` has 1 domain rule(s) but network.enabled is not true",
    );
    expect(config.warnings.join("\n")).toContain("permissions profile `blind` has no filesystem rules");
  });
});

describe("permission profiles: layers and overrides", () => {
  it("-c keys may quote a segment, as TOML does", () => {
    expect(parseOverride('permissions.web.network.domains."x.test"="allow"')).toEqual({
      path: ["permissions", "web", "network", "domains", "x.test"],
      value: "allow",
    });
    expect(parseOverride("permissions.w.filesystem.':workspace_roots'.\"a=b\" = 'deny'").path).toEqual([
      "permissions",
      "w",
      "filesystem",
      ":workspace_roots",
      "a=b",
    ]);
    expect(parseOverride(" a . b = 1")).toEqual({ path: ["a", "b"], value: 1 });
    expect(() => parseOverride('a."b=1')).toThrow(/expected key.path=value|unterminated quote/);
  });

  it("-c selects a profile and adds a domain rule to it", async () => {
    const config = await load(WEB.replace('default_permissions = "web"', ""), {
      overrides: [
        parseOverride("default_permissions=web"),
        parseOverride('permissions.web.network.domains."x.test"="allow"'),
      ],
    });
    const { permissions, source } = configuredPermissions(config);
    expect(source).toBe("profile");
    if (permissions.kind !== "sandboxed" || permissions.network.kind !== "proxied")
      throw new Error("no proxy");
    expect(permissions.network.domains).toContainEqual({ pattern: "x.test", action: "allow" });
    expect(permissions.network.domains).toContainEqual({ pattern: "bad.example.com", action: "deny" });
  });

  it("a trusted project's .codex/config.toml adds to the user's profile of the same name", async () => {
    const work = await tmpdir("tscodex-work-");
    try {
      await mkdir(join(work.path, ".codex"));
      await writeFile(
        join(work.path, ".codex", "config.toml"),
        `[permissions.web]\nworkspace_roots = { "/srv/project" = true }\n[permissions.web.network.domains]\n"project.test" = "allow"\n`,
      );
      const config = await load(`${WEB}\n[projects."${work.path}"]\ntrust_level = "trusted"\n`, {
        cwd: work.path,
      });
      const value = resolvePermissionProfile(config.permissionProfiles, "web", "/h");
      if (value.kind !== "sandboxed" || value.network.kind !== "proxied") throw new Error("no proxy");
      expect(value.filesystem.workspaceRoots).toEqual(["/srv/project"]);
      expect(value.network.domains.map((rule) => rule.pattern)).toEqual([
        "allowed.example",
        "*.example.com",
        "bad.example.com",
        "project.test",
      ]);
    } finally {
      await work.cleanup();
    }
  });
});

describe("configuredPermissions: which setting is in force", () => {
  it("default_permissions wins over a sandbox_mode in the config file, and says so", async () => {
    const config = await load(`sandbox_mode = "danger-full-access"\n${WEB}`);
    expect(config.sandboxModeExplicit).toBe(true);
    const chosen = configuredPermissions(config, {}, "/h");
    expect(chosen.source).toBe("profile");
    expect(chosen.permissions.profile).toEqual({ id: "web", extends: ":workspace" });
    expect(chosen.note).toContain('default_permissions = "web" is in force');
  });

  it("-s wins over default_permissions (legacy mode, no network), and says so", async () => {
    const config = await load(WEB, { sandboxMode: "workspace-write" });
    const chosen = configuredPermissions(config, {}, "/h");
    expect(chosen.source).toBe("sandbox_mode");
    expect(chosen.permissions).toMatchObject({ kind: "sandboxed", profile: null, network: { kind: "none" } });
    expect(chosen.note).toContain('sandbox_mode = "workspace-write" (-s) is in force');
  });

  it("an explicit profile choice wins over everything", async () => {
    const config = await load(WEB, { sandboxMode: "read-only" });
    const chosen = configuredPermissions(config, { profile: ":danger-full-access" }, "/h");
    expect(chosen.permissions.kind).toBe("danger-full-access");
    expect(chosen.source).toBe("profile");
    expect(() => configuredPermissions(config, { profile: "nosuch" }, "/h")).toThrow(
      new PermissionProfileError("default_permissions refers to undefined profile `nosuch`"),
    );
  });

  it("without profiles, the legacy sandbox mode and its extent", async () => {
    const config = await load(
      `sandbox_mode = "workspace-write"\n[sandbox_workspace_write]\nnetwork_access = true`,
    );
    const chosen = configuredPermissions(config, {}, "/h");
    expect(chosen).toMatchObject({ source: "sandbox_mode", note: null });
    expect(chosen.permissions).toMatchObject({ legacyMode: "workspace-write", network: { kind: "full" } });
    expect((await load("")).sandboxModeExplicit).toBe(false);
  });

  it("[permissions] without default_permissions and no sandbox mode is refused; a sandbox mode or a choice gets past it", async () => {
    const toml = `[permissions.web]\nextends = ":read-only"`;
    const config = await load(toml);
    expect(() => configuredPermissions(config, {}, "/h")).toThrow(
      new PermissionProfileError(
        "config defines `[permissions]` profiles but does not set `default_permissions`",
      ),
    );
    expect(configuredPermissions(config, { profile: "web" }, "/h").source).toBe("profile");
    const withMode = await load(toml, { overrides: [parseOverride("sandbox_mode=read-only")] });
    expect(withMode.sandboxModeSource).toBe("override");
    expect(configuredPermissions(withMode, {}, "/h")).toMatchObject({
      source: "sandbox_mode",
      note: 'sandbox_mode = "read-only" is in force; the [permissions] profiles are not used: default_permissions is not set',
    });
  });
});
