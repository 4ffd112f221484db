import { mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GLOB_MATCH_LIMIT, resolveFilesystemRules } from "../../src/config/fs-paths.js";
import { PermissionProfileError } from "../../src/config/permission-profiles.js";
import type { FilesystemPolicy, FsRule } from "../../src/protocol/permissions.js";
import { MINIMAL_PATHS } from "../../src/protocol/permissions.js";
import { permissionsFromSandboxMode } from "../../src/protocol/permissions-legacy.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let dir: TempDir;
let root: string;
beforeEach(async () => {
  dir = await tmpdir("tscodex-fsrules-");
  root = await realpath(dir.path);
});
afterEach(() => dir.cleanup());

const policy = (rules: FsRule[], extra: Partial<FilesystemPolicy> = {}): FilesystemPolicy => ({
  rules,
  workspaceRoots: [],
  globScanMaxDepth: 8,
  ...extra,
});

describe("resolveFilesystemRules", () => {
  it("gives concrete paths, one per path, least specific first; deny > write > read at equal paths", async () => {
    const ws = join(root, "ws");
    await mkdir(join(ws, "secret", "open"), { recursive: true });
    const rules = await resolveFilesystemRules(
      policy([
        { path: ":workspace_roots/secret/open", access: "read" },
        { path: ":workspace_roots", access: "write" },
        { path: ":root", access: "read" },
        { path: ":workspace_roots/secret", access: "deny" },
        { path: `${ws}/secret`, access: "write" },
        { path: ":slash_tmp", access: "write" },
      ]),
      { cwd: ws, tmpdir: null, home: "/nohome" },
    );
    expect(rules).toEqual([
      { path: "/", access: "read" },
      { path: await realpath("/tmp"), access: "write" },
      { path: ws, access: "write" },
      { path: join(ws, "secret"), access: "deny" },
      { path: join(ws, "secret", "open"), access: "read" },
    ]);
  });

  it("joins the profile's workspace roots to the cwd, and expands ~/ and :tmpdir (none without $TMPDIR)", async () => {
    const extra = join(root, "extra");
    const rules = await resolveFilesystemRules(
      policy(
        [
          { path: ":workspace_roots/out", access: "write" },
          { path: ":tmpdir", access: "write" },
          { path: "~/notes", access: "read" },
        ],
        { workspaceRoots: [extra] },
      ),
      { cwd: join(root, "ws"), tmpdir: null, home: join(root, "home") },
    );
    expect(rules).toEqual([
      { path: join(root, "extra", "out"), access: "write" },
      { path: join(root, "home", "notes"), access: "read" },
      { path: join(root, "ws", "out"), access: "write" },
    ]);
    const withTmp = await resolveFilesystemRules(policy([{ path: ":tmpdir", access: "write" }]), {
      cwd: root,
      tmpdir: join(root, "t"),
      home: root,
    });
    expect(withTmp).toEqual([{ path: join(root, "t"), access: "write" }]);
  });

  it("resolves symlinks in rule paths, also below a link to a directory", async () => {
    await mkdir(join(root, "real", "sub"), { recursive: true });
    await symlink(join(root, "real"), join(root, "link"));
    const rules = await resolveFilesystemRules(
      policy([
        { path: `${root}/link`, access: "write" },
        { path: `${root}/link/sub/missing`, access: "deny" },
      ]),
      { cwd: root, tmpdir: null, home: root },
    );
    expect(rules).toEqual([
      { path: join(root, "real"), access: "write" },
      { path: join(root, "real", "sub", "missing"), access: "deny" },
    ]);
  });

  it("expands a deny glob to what matches now, down to glob_scan_max_depth", async () => {
    const ws = join(root, "ws");
    await mkdir(join(ws, "a", "b", "c"), { recursive: true });
    for (const file of [
      "top.key",
      "a/one.key",
      "a/b/two.key",
      "a/b/c/three.key",
      "a/keep.txt",
      "a/.hidden.key",
    ])
      await writeFile(join(ws, file), "x");
    const resolve = (globScanMaxDepth: number) =>
      resolveFilesystemRules(
        policy(
          [
            { path: ":workspace_roots", access: "write" },
            { path: ":workspace_roots/**/*.key", access: "deny" },
          ],
          { globScanMaxDepth },
        ),
        { cwd: ws, tmpdir: null, home: root },
      );
    const denied = async (depth: number) =>
      (await resolve(depth))
        .filter((rule) => rule.access === "deny")
        .map((rule) => rule.path.slice(ws.length + 1));
    expect(await denied(8)).toEqual([
      "top.key",
      "a/.hidden.key",
      "a/one.key",
      "a/b/two.key",
      "a/b/c/three.key",
    ]);
    expect(await denied(1)).toEqual(["top.key", "a/.hidden.key", "a/one.key"]);
    const single = await resolveFilesystemRules(policy([{ path: `${ws}/a/?ne.[jk]ey`, access: "deny" }]), {
      cwd: ws,
      tmpdir: null,
      home: root,
    });
    expect(single).toEqual([{ path: join(ws, "a", "one.key"), access: "deny" }]);
  });

  it("refuses a read or write glob", async () => {
    await expect(
      resolveFilesystemRules(policy([{ path: ":workspace_roots/*.txt", access: "write" }]), {
        cwd: root,
        tmpdir: null,
        home: root,
      }),
    ).rejects.toThrow(PermissionProfileError);
  });

  it("refuses a glob matching more than the limit rather than deny only some of it", async () => {
    const many = join(root, "many");
    await mkdir(many);
    const names = Array.from({ length: GLOB_MATCH_LIMIT + 1 }, (_, i) => `f${i}.key`);
    for (let i = 0; i < names.length; i += 500)
      await Promise.all(names.slice(i, i + 500).map((name) => writeFile(join(many, name), "")));
    const glob = (path: string) =>
      resolveFilesystemRules(policy([{ path, access: "deny" }]), { cwd: root, tmpdir: null, home: root });
    await expect(glob(`${many}/*.key`)).rejects.toThrow(`matches more than ${GLOB_MATCH_LIMIT} paths`);
    expect(await glob(`${many}/f1?.key`)).toHaveLength(10);
  });

  it(":minimal is the system directories present here", async () => {
    const rules = await resolveFilesystemRules(policy([{ path: ":minimal", access: "read" }]), {
      cwd: root,
      tmpdir: null,
      home: root,
    });
    expect(rules.map((rule) => rule.path)).toContain(await realpath("/usr"));
    expect(rules.every((rule) => rule.access === "read")).toBe(true);
    expect(rules.length).toBeLessThanOrEqual(MINIMAL_PATHS.length);
  });

  it("serves the legacy values too: workspace-write writes the cwd, the temp dirs and the extra roots", async () => {
    const value = permissionsFromSandboxMode("workspace-write", {
      writableRoots: [join(root, "extra")],
      networkAccess: false,
      excludeTmpdirEnvVar: false,
      excludeSlashTmp: true,
    });
    if (value.kind !== "sandboxed") throw new Error("not sandboxed");
    const rules = await resolveFilesystemRules(value.filesystem, {
      cwd: join(root, "ws"),
      tmpdir: join(root, "tmp"),
      home: root,
    });
    expect(rules).toEqual([
      { path: "/", access: "read" },
      { path: join(root, "extra"), access: "write" },
      { path: join(root, "tmp"), access: "write" },
      { path: join(root, "ws"), access: "write" },
    ]);
  });
});
