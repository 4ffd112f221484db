/**
 * A permission profile's filesystem rules (SandboxPolicy.fsRules), on both backends with the
 * real helper and bwrap: a denied directory cannot be read, listed or written ("Permission
 * denied", as Codex's deny does); a narrower read rule reopens a subtree of a deny; a write rule
 * outside the cwd works while a sibling stays read-only; control dirs inside a write rule stay
 * read-only; without a `/` rule nothing else is readable (a sibling temp dir, /etc) while the
 * rules' paths (/usr) work; a denied file reads as "Permission denied". Legacy policies (no
 * fsRules) keep the whole host readable.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../src/exec/spawn.js";
import { prepareSandboxedCommand, type SandboxPolicy } from "../../src/policy/sandbox/index.js";
import type { ResolvedFsRule } from "../../src/policy/sandbox/types.js";
import { renderCaptured } from "../../src/tools/truncate.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing } from "../support/skips.js";

const backends = await sandboxBackends();

let base: string;
let ws: string;
let out: string;
let sibling: string;

beforeEach(async () => {
  // Outside /tmp: /tmp is a writable root or rule elsewhere.
  const parent = existsSync("/var/tmp") ? "/var/tmp" : process.cwd();
  base = await mkdtemp(join(parent, ".tscodex-test-fsrules-"));
  ws = join(base, "ws");
  out = join(base, "out");
  sibling = join(base, "sibling");
  await mkdir(join(ws, "secret", "open"), { recursive: true });
  await writeFile(join(ws, "secret", "s.txt"), "TOP-SECRET\n");
  await writeFile(join(ws, "secret", "open", "o.txt"), "REOPENED\n");
  await mkdir(join(ws, "secret", "deep", "inner"), { recursive: true });
  await writeFile(join(ws, "secret", "deep", "inner", "i.txt"), "DEEP\n");
  await writeFile(join(ws, "secret", "deep", "d.txt"), "DEEP-SECRET\n");
  await writeFile(join(ws, "key.pem"), "PRIVATE-KEY\n");
  await mkdir(join(out, ".codex"), { recursive: true });
  await writeFile(join(out, ".codex", "config.toml"), "model = 'x'\n");
  await mkdir(sibling);
  await writeFile(join(sibling, "file.txt"), "SIBLING\n");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function sandboxed(
  backend: "bwrap" | "landlock",
  fsRules: ResolvedFsRule[] | undefined,
  script: string,
) {
  const policy: SandboxPolicy = {
    mode: "workspace-write",
    writableRoots: [ws],
    networkAccess: false,
    ...(fsRules ? { fsRules } : {}),
  };
  const prepared = await prepareSandboxedCommand(["bash", "-c", script], ws, policy, { backend });
  const result = await runCommand({
    argv: prepared.argv,
    cwd: ws,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: ws, LANG: "C.UTF-8" },
    timeoutMs: 30_000,
  });
  return { exitCode: result.exitCode, output: renderCaptured(result.aggregated) };
}

/** `/` readable, the workspace writable: the shape of `:workspace`-like profiles. */
const workspace = (): ResolvedFsRule[] => [
  { path: "/", access: "read" },
  { path: ws, access: "write" },
];

/** The system paths a profile without `/` reads (what `:minimal` resolves to here). */
const MINIMAL = ["/usr", "/bin", "/lib", "/lib64", "/sbin"];

describe.each(backends)("filesystem rules under $name", ({ name, status }) => {
  const skip = missing(status, `the filesystem-rule checks under ${name}`);

  it.skipIf(skip)("a denied directory cannot be read, listed or written", async () => {
    const rules = [...workspace(), { path: join(ws, "secret"), access: "deny" as const }];
    const { output } = await sandboxed(
      name,
      rules,
      "cat secret/s.txt; ls secret; echo x > secret/new; echo w > ok.txt && echo WROTE-OK",
    );
    expect(output).not.toContain("TOP-SECRET");
    expect(output).toMatch(/cat: secret\/s.txt: Permission denied/);
    expect(output).toMatch(/ls: cannot open directory '?secret'?: Permission denied/);
    expect(output).toMatch(/secret\/new: Permission denied/);
    expect(output).toContain("WROTE-OK");
    expect(existsSync(join(ws, "secret", "new"))).toBe(false);
    expect(readFileSync(join(ws, "ok.txt"), "utf8")).toBe("w\n");
  });

  it.skipIf(skip)("a denied file reads as Permission denied", async () => {
    const rules = [...workspace(), { path: join(ws, "key.pem"), access: "deny" as const }];
    const { output } = await sandboxed(name, rules, "chmod 644 key.pem; cat key.pem; echo y > key.pem");
    expect(output).not.toContain("PRIVATE-KEY");
    expect(output).toMatch(/cat: key.pem: Permission denied/);
    expect(readFileSync(join(ws, "key.pem"), "utf8")).toBe("PRIVATE-KEY\n");
  });

  it.skipIf(skip)("a narrower read rule reopens a subtree of a deny", async () => {
    const rules = [
      ...workspace(),
      { path: join(ws, "secret"), access: "deny" as const },
      { path: join(ws, "secret", "open"), access: "read" as const },
    ];
    const { output } = await sandboxed(
      name,
      rules,
      "cat secret/open/o.txt; cat secret/s.txt; echo x > secret/open/new || echo NO-WRITE",
    );
    expect(output).toContain("REOPENED");
    expect(output).not.toContain("TOP-SECRET");
    expect(output).toContain("NO-WRITE");
    expect(existsSync(join(ws, "secret", "open", "new"))).toBe(false);
  });

  it.skipIf(skip)("a reopened path deeper inside a deny: the directories between only traverse", async () => {
    const rules = [
      ...workspace(),
      { path: join(ws, "secret"), access: "deny" as const },
      { path: join(ws, "secret", "deep", "inner"), access: "read" as const },
    ];
    const { output } = await sandboxed(
      name,
      rules,
      "cat secret/deep/inner/i.txt; ls secret/deep || echo DEEP-UNLISTED; cat secret/deep/d.txt",
    );
    expect(output).toContain("DEEP\n");
    expect(output).toContain("DEEP-UNLISTED");
    expect(output).not.toContain("DEEP-SECRET");
    expect(output).not.toMatch(/^inner$/m);
  });

  it.skipIf(skip)(
    "a write rule outside the cwd works; its sibling and control dirs stay read-only",
    async () => {
      const rules = [...workspace(), { path: out, access: "write" as const }];
      const script = [
        `echo made > ${out}/made.txt && echo OUT-OK`,
        `echo bad > ${sibling}/bad.txt || echo SIBLING-RO`,
        `echo "model = 'evil'" > ${out}/.codex/config.toml || echo CODEX-RO`,
      ].join("\n");
      const { output } = await sandboxed(name, rules, script);
      expect(output).toContain("OUT-OK");
      expect(output).toContain("SIBLING-RO");
      expect(output).toContain("CODEX-RO");
      expect(readFileSync(join(out, "made.txt"), "utf8")).toBe("made\n");
      expect(existsSync(join(sibling, "bad.txt"))).toBe(false);
      expect(readFileSync(join(out, ".codex", "config.toml"), "utf8")).toBe("model = 'x'\n");
    },
  );

  it.skipIf(skip)("without a `/` rule only the rules' paths can be read", async () => {
    const rules: ResolvedFsRule[] = [
      ...MINIMAL.map((path) => ({ path, access: "read" as const })),
      { path: ws, access: "write" },
    ];
    const script = [
      "/usr/bin/env true && echo USR-OK",
      `cat ${sibling}/file.txt`,
      "cat /etc/hostname && echo ETC-READ",
      "ls /home && echo HOME-LISTED",
      "echo w > in-ws.txt && echo WS-OK",
    ].join("\n");
    const { output } = await sandboxed(name, rules, script);
    expect(output).toContain("USR-OK");
    expect(output).toContain("WS-OK");
    expect(output).not.toContain("SIBLING");
    expect(output).not.toContain("ETC-READ");
    expect(output).not.toContain("HOME-LISTED");
    expect(readFileSync(join(ws, "in-ws.txt"), "utf8")).toBe("w\n");
  });

  it.skipIf(skip)(
    "without fsRules the legacy layout is unchanged: the host reads, only roots write",
    async () => {
      const script = `cat ${sibling}/file.txt; cat secret/s.txt; echo bad > ${out}/bad.txt || echo OUT-RO`;
      const { output } = await sandboxed(name, undefined, script);
      expect(output).toContain("SIBLING");
      expect(output).toContain("TOP-SECRET");
      expect(output).toContain("OUT-RO");
    },
  );
});
