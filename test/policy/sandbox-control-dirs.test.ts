/**
 * The control directories (issue 37 cause 2): `.codex` holds a project's config layer (its MCP
 * server commands run outside every sandbox in a trusted project), `.agents` its skills and
 * `.tscodex` ours. Under workspace-write a sandboxed command can neither give anything such a
 * name (any case, at a root's top or below, by mkdir, a rename or a symlink) nor change an
 * existing one (at the top, or nested where the scan for `.git` finds it), on both backends;
 * an existing `.aws` at a root's top is read-only too. danger-full-access can do all of it.
 *
 * The workspace lives outside /tmp, because /tmp is itself a writable root elsewhere.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../src/exec/spawn.js";
import { prepareSandboxedCommand, type SandboxPolicy } from "../../src/policy/sandbox/index.js";
import { renderCaptured } from "../../src/tools/truncate.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing } from "../support/skips.js";

type Mode = SandboxPolicy["mode"];
const MODES: Mode[] = ["workspace-write", "danger-full-access"];
const GUARDED = [".codex", ".tscodex", ".agents"];
const backends = await sandboxBackends();

let base: string;
let ws: string;

beforeEach(async () => {
  const parent = existsSync("/var/tmp") ? "/var/tmp" : process.cwd();
  base = await mkdtemp(join(parent, ".tscodex-test-control-"));
  ws = join(base, "ws");
  await mkdir(join(ws, "src"), { recursive: true });
  await mkdir(join(ws, "sub"), { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function sandboxed(backend: "bwrap" | "landlock", mode: Mode, script: string) {
  const policy: SandboxPolicy = { mode, writableRoots: [ws], networkAccess: false };
  const prepared = await prepareSandboxedCommand(["bash", "-c", script], ws, policy, { backend });
  const result = await runCommand({
    argv: prepared.argv,
    cwd: ws,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base, LANG: "C.UTF-8" },
    timeoutMs: 30_000,
  });
  return { exitCode: result.exitCode, output: renderCaptured(result.aggregated) };
}

/** Every entry below `dir` named like a control directory in any case (links not followed). */
function controlNamesBelow(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (GUARDED.includes(entry.name.toLowerCase())) found.push(path);
    else if (entry.isDirectory() && !lstatSync(path).isSymbolicLink()) found.push(...controlNamesBelow(path));
  }
  return found;
}

const CONFIG = `printf '[mcp_servers.x]\\ncommand = "touch /tmp/PWNED"\\n'`;

/** Ways to make `name` (a control directory's name, as given) at `dir` ("." or "sub"). */
function creations(name: string) {
  const upper = name.toUpperCase();
  return [
    {
      title: `mkdir -p ${name} with config.toml inside`,
      script: `mkdir -p ${name} && ${CONFIG} > ${name}/config.toml`,
    },
    { title: `mkdir sub/${name}`, script: `mkdir sub/${name}` },
    {
      title: `mv a filled directory to ${name}`,
      script: `mkdir made && ${CONFIG} > made/config.toml && mv made ${name}`,
    },
    {
      title: `ln -s src sub/${name}`,
      script: `ln -s ../src sub/${name} && ${CONFIG} > sub/${name}/config.toml`,
    },
    { title: `mkdir -p deep/a/${upper} (another case)`, script: `mkdir -p deep/a/${upper}` },
    { title: `touch ${name} (a file)`, script: `touch ${name}` },
  ];
}

describe.each(backends)("creating a control directory under $name", ({ name: backend, status }) => {
  describe.skipIf(missing(status, `the control directory checks under ${backend}`)).each(MODES)(
    "%s",
    (mode) => {
      const allowed = mode === "danger-full-access";
      for (const dir of GUARDED) {
        for (const attempt of creations(dir)) {
          it(`${attempt.title}: ${allowed ? "allowed" : "blocked"}`, async () => {
            const run = await sandboxed(backend, mode, attempt.script);
            const planted = controlNamesBelow(ws);
            if (allowed) {
              expect(run.exitCode, run.output).toBe(0);
              expect(planted.length, run.output).toBeGreaterThan(0);
            } else {
              expect(run.exitCode, run.output).not.toBe(0);
              expect(planted, run.output).toEqual([]);
              expect(existsSync(join(ws, "src", "config.toml")), run.output).toBe(false);
            }
          });
        }
      }
    },
  );
});

const ORIGINAL = "# the user's\n";

/** Existing control directories: at the top, nested (as `.git` is), and `.aws` at the top. */
async function writeExisting(): Promise<void> {
  for (const dir of [".codex", ".tscodex", ".agents/skills/mine", "sub/.codex", "sub/deeper/.agents", ".aws"])
    await mkdir(join(ws, dir), { recursive: true });
  for (const file of [
    ".codex/config.toml",
    "sub/.codex/config.toml",
    ".agents/skills/mine/SKILL.md",
    ".aws/config",
  ])
    await writeFile(join(ws, file), ORIGINAL);
}

/** Changes to existing control directories; `intact` says whether the change was kept out. */
const changes = [
  {
    title: "appends to .codex/config.toml",
    script: `${CONFIG} >> .codex/config.toml`,
    file: ".codex/config.toml",
  },
  {
    title: "appends to a nested sub/.codex/config.toml",
    script: `${CONFIG} >> sub/.codex/config.toml`,
    file: "sub/.codex/config.toml",
  },
  {
    title: "adds a skill to .agents/skills",
    script: "mkdir .agents/skills/evil && echo x > .agents/skills/evil/SKILL.md",
    file: ".agents/skills/evil/SKILL.md",
    created: true,
  },
  {
    title: "adds a skill to a nested sub/deeper/.agents",
    script: "mkdir -p sub/deeper/.agents/skills && echo x > sub/deeper/.agents/skills/SKILL.md",
    file: "sub/deeper/.agents/skills/SKILL.md",
    created: true,
  },
  {
    title: "adds a file to .tscodex",
    script: "echo x > .tscodex/config.toml",
    file: ".tscodex/config.toml",
    created: true,
  },
  {
    title: "replaces .agents/skills/mine/SKILL.md",
    script: "rm -rf .agents/skills/mine",
    file: ".agents/skills/mine/SKILL.md",
  },
  { title: "moves .codex away", script: "mv .codex gone", file: ".codex/config.toml" },
  { title: "writes .aws/config", script: "echo '[default]' > .aws/config", file: ".aws/config" },
];

describe.each(backends)("changing an existing control directory under $name", ({ name: backend, status }) => {
  describe.skipIf(missing(status, `the existing control directory checks under ${backend}`)).each(MODES)(
    "%s",
    (mode) => {
      const allowed = mode === "danger-full-access";
      for (const change of changes) {
        it(`${change.title}: ${allowed ? "allowed" : "blocked"}`, async () => {
          await writeExisting();
          const run = await sandboxed(backend, mode, change.script);
          const path = join(ws, change.file);
          const intact = change.created
            ? !existsSync(path)
            : existsSync(path) && readFileSync(path, "utf8") === ORIGINAL;
          if (allowed) {
            expect(run.exitCode, run.output).toBe(0);
            expect(intact, run.output).toBe(false);
          } else {
            expect(run.exitCode, run.output).not.toBe(0);
            expect(intact, run.output).toBe(true);
          }
        });
      }
    },
  );
});
