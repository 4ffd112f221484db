/**
 * requirements.toml (config/requirements.ts): loading and checking the files (system files given
 * by the test, the home's found by name), how several files combine (each one bounds: the most
 * restrictive wins), the refusal texts, the defaults nobody chose, the fs/* reach and the wire
 * projection of configRequirements/read.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import {
  approvalDefault,
  ceilingViolation,
  fsWriteCeiling,
  loadRequirements,
  profileAllowed,
  type Requirements,
  requirementsWire,
  sandboxDefault,
} from "../../src/config/requirements.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let dir: TempDir;
let home: string;
let system: string;

beforeEach(async () => {
  dir = await tmpdir("tscodex-requirements-");
  home = join(dir.path, "home");
  system = join(dir.path, "etc", "requirements.toml");
  await mkdir(home, { recursive: true });
  await mkdir(join(dir.path, "etc"), { recursive: true });
});
afterEach(() => dir.cleanup());

const homeFile = () => join(home, "requirements.toml");
const load = () => loadRequirements(home, [system]);

describe("loading requirements.toml", () => {
  it("is null without any file, and null for a file that sets nothing", async () => {
    expect(await load()).toBeNull();
    expect(await loadRequirements(home)).toBeNull();
    await writeFile(homeFile(), "# nothing yet\n");
    expect((await load())?.files).toEqual([]);
    expect(requirementsWire(await load())).toBeNull();
  });

  it("reads the home's file and the system files, most authoritative first", async () => {
    await writeFile(system, 'allowed_sandbox_modes = ["read-only", "workspace-write"]\n');
    await writeFile(
      homeFile(),
      'allowed_approval_policies = ["on-request", "untrusted"]\n[allowed_permission_profiles]\n":workspace" = true\n":danger-full-access" = false\n',
    );
    expect((await load())?.files).toEqual([
      { path: system, allowedSandboxModes: ["read-only", "workspace-write"] },
      {
        path: homeFile(),
        allowedApprovalPolicies: ["on-request", "untrusted"],
        allowedPermissionProfiles: { ":workspace": true, ":danger-full-access": false },
      },
    ]);
  });

  it("refuses a malformed file, naming it and the problem", async () => {
    const cases: [string, RegExp][] = [
      ["allowed_sandbox_modes = [", /invalid TOML/],
      ['allowed_sandbox_modes = ["workspace-write"]', /allowed_sandbox_modes: must include "read-only"/],
      ['allowed_sandbox_modes = ["read-only", "yolo"]', /allowed_sandbox_modes\.1: /],
      ["allowed_approval_policies = []", /allowed_approval_policies: /],
      ['[allowed_permission_profiles]\n":workspace" = false', /must allow at least one profile/],
      ['allowed_sandbox_mode = ["read-only"]', /unknown key 'allowed_sandbox_mode'/],
      [
        '[mcp_servers.docs]\nidentity = { command = "x" }',
        /requirement 'mcp_servers' cannot be enforced by tscodex/,
      ],
    ];
    for (const [text, problem] of cases) {
      await writeFile(homeFile(), `${text}\n`);
      const error = await load().then(
        () => null,
        (caught: Error) => caught,
      );
      expect(error?.message, text).toMatch(problem);
      expect(error?.message.startsWith(`${homeFile()}: `), text).toBe(true);
    }
  });

  it("warns about Codex keys that say nothing about what runs, and ignores them", async () => {
    await writeFile(
      homeFile(),
      'chatgpt_base_url = "https://example.test"\nallowed_sandbox_modes = ["read-only"]\n',
    );
    const requirements = await load();
    expect(requirements?.warnings).toEqual([
      `${homeFile()}: requirement 'chatgpt_base_url' is not used by tscodex (ignored)`,
    ]);
    expect(requirements?.files).toHaveLength(1);
  });

  it("refuses files that together allow no approval policy", async () => {
    await writeFile(system, 'allowed_approval_policies = ["on-request"]\n');
    await writeFile(homeFile(), 'allowed_approval_policies = ["never"]\n');
    await expect(load()).rejects.toThrow(
      `allowed_approval_policies of ${system} and ${homeFile()} allow nothing in common: every request would be refused`,
    );
  });

  it("is part of the configuration: a bad file fails loadConfig, a warning lands in its warnings", async () => {
    await writeFile(homeFile(), 'allowed_sandbox_modes = ["danger-full-access"]\n');
    await expect(loadConfig({ home, env: {} })).rejects.toThrow(homeFile());
    await writeFile(homeFile(), 'log_dir = "/tmp"\nallowed_approval_policies = ["untrusted"]\n');
    const config = await loadConfig({ home, env: {} });
    expect(config.requirements?.files).toHaveLength(1);
    expect(config.warnings).toContain(
      `${homeFile()}: requirement 'log_dir' is not used by tscodex (ignored)`,
    );
    // The default nobody chose (on-request) moved inside the ceiling; a chosen value is kept.
    expect(config.approvalPolicy).toBe("untrusted");
    expect((await loadConfig({ home, env: {}, approvalPolicy: "never" })).approvalPolicy).toBe("never");
  });
});

describe("the ceiling", () => {
  const file = (
    fields: Omit<Requirements["files"][number], "path">,
    path = "/etc/tscodex/requirements.toml",
  ) => ({
    path,
    ...fields,
  });

  it("names the requirement, its values and its file", () => {
    const requirements: Requirements = {
      files: [
        file({
          allowedSandboxModes: ["read-only", "workspace-write"],
          allowedApprovalPolicies: ["on-request"],
        }),
      ],
      warnings: [],
    };
    expect(ceilingViolation(requirements, { sandboxMode: "danger-full-access" })).toBe(
      "sandbox mode `danger-full-access` is not allowed by requirements.toml (allowed_sandbox_modes = read-only, workspace-write) at /etc/tscodex/requirements.toml",
    );
    expect(ceilingViolation(requirements, { approvalPolicy: "never" })).toBe(
      "approval policy `never` is not allowed by requirements.toml (allowed_approval_policies = on-request) at /etc/tscodex/requirements.toml",
    );
    expect(
      ceilingViolation(requirements, { sandboxMode: "workspace-write", approvalPolicy: "on-request" }),
    ).toBeNull();
    expect(ceilingViolation(requirements, {})).toBeNull();
    expect(ceilingViolation(null, { sandboxMode: "danger-full-access", approvalPolicy: "never" })).toBeNull();
  });

  it("forces profiles when allowed_permission_profiles is set: a legacy mode is judged as its built-in", () => {
    const requirements: Requirements = {
      files: [
        file({ allowedPermissionProfiles: { ":workspace": true, web: true, ":danger-full-access": false } }),
      ],
      warnings: [],
    };
    expect(
      ceilingViolation(requirements, { permissionProfile: "web", sandboxMode: "workspace-write" }),
    ).toBeNull();
    expect(ceilingViolation(requirements, { permissionProfile: "other" })).toBe(
      "permission profile `other` is not allowed by requirements.toml (allowed_permission_profiles = :workspace, web) at /etc/tscodex/requirements.toml",
    );
    expect(ceilingViolation(requirements, { sandboxMode: "read-only" })).toBe(
      "sandbox mode `read-only` (the built-in permission profile `:read-only`) is not allowed by requirements.toml (allowed_permission_profiles = :workspace, web) at /etc/tscodex/requirements.toml",
    );
    expect(profileAllowed(requirements, ":danger-full-access")).toBe(false);
    expect(profileAllowed(requirements, ":workspace")).toBe(true);
    // A built-in profile is checked against allowed_sandbox_modes too, as its mode.
    const modes: Requirements = { files: [file({ allowedSandboxModes: ["read-only"] })], warnings: [] };
    expect(ceilingViolation(modes, { permissionProfile: ":workspace" })).toMatch(
      /^sandbox mode `workspace-write`/,
    );
    // A default nobody chose moves to what the ceiling allows.
    expect(sandboxDefault(requirements, "read-only")).toBe("workspace-write");
  });

  it("bounds with every file: the most restrictive wins, and names the file that refused", () => {
    const requirements: Requirements = {
      files: [
        file({ allowedSandboxModes: ["read-only", "workspace-write", "danger-full-access"] }),
        file({ allowedSandboxModes: ["read-only", "workspace-write"] }, "/home/u/.tscodex/requirements.toml"),
      ],
      warnings: [],
    };
    expect(ceilingViolation(requirements, { sandboxMode: "danger-full-access" })).toMatch(
      / at \/home\/u\/\.tscodex\/requirements\.toml$/,
    );
    expect(requirementsWire(requirements)).toEqual({
      allowedSandboxModes: ["read-only", "workspace-write"],
      allowedApprovalPolicies: null,
      allowedPermissionProfiles: null,
    });
    expect(fsWriteCeiling(requirements)).toEqual({
      reach: "workspace",
      because: "allowed_sandbox_modes = read-only, workspace-write at /home/u/.tscodex/requirements.toml",
    });
  });

  it("gives fs/* its reach: anywhere, the workspace or nowhere", () => {
    const only = (fields: Omit<Requirements["files"][number], "path">): Requirements => ({
      files: [file(fields)],
      warnings: [],
    });
    expect(fsWriteCeiling(null).reach).toBe("anywhere");
    expect(fsWriteCeiling(only({ allowedApprovalPolicies: ["never"] })).reach).toBe("anywhere");
    expect(fsWriteCeiling(only({ allowedSandboxModes: ["read-only", "danger-full-access"] })).reach).toBe(
      "anywhere",
    );
    expect(fsWriteCeiling(only({ allowedSandboxModes: ["read-only"] })).reach).toBe("none");
    expect(fsWriteCeiling(only({ allowedPermissionProfiles: { ":read-only": true } })).reach).toBe("none");
    // A named profile counts as the workspace (never wider).
    expect(fsWriteCeiling(only({ allowedPermissionProfiles: { web: true } })).reach).toBe("workspace");
  });

  it("projects profiles as allowed only where every file allows them, and falls back for defaults", () => {
    const requirements: Requirements = {
      files: [
        file({
          allowedPermissionProfiles: { ":workspace": true, web: true },
          allowedApprovalPolicies: ["untrusted", "on-request"],
        }),
        file(
          { allowedPermissionProfiles: { ":workspace": true, ":read-only": true } },
          "/h/requirements.toml",
        ),
      ],
      warnings: [],
    };
    expect(requirementsWire(requirements)).toEqual({
      allowedSandboxModes: null,
      allowedApprovalPolicies: ["untrusted", "on-request"],
      allowedPermissionProfiles: { ":workspace": true, web: false, ":read-only": false },
    });
    expect(approvalDefault(requirements, "on-request")).toBe("on-request");
    expect(approvalDefault(requirements, "never")).toBe("untrusted");
    expect(approvalDefault(null, "never")).toBe("never");
  });
});
