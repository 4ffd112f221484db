/**
 * Whose directory decides "the project" (issue 37): under a world-writable parent (like /tmp)
 * or a parent another user owns, that user's `.git`, `.codex/config.toml` and AGENTS.md must not
 * become part of a project the user trusted, and `exec --trust` records exactly the directory
 * the user ran in. "Another user" is uid 12345 (files chown-ed to it), so those cases need root.
 * The user's own repository still works as before: trust recorded for its git root, layers from
 * the root down to cwd.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { setProjectTrust, useOutsideDir } from "../support/hostile-repo.js";

const h = useExecHarness({ git: false });
const outside = useOutsideDir();

const OTHER_UID = 12345;
const isRoot = process.getuid?.() === 0;
if (!isRoot)
  console.warn("skipped the other-user cases of project root ownership: they chown files, which needs root");

const marker = (name: string) => join(outside(), name);

/** `.codex/hooks.json` in `dir` with a UserPromptSubmit hook touching marker `<name>-hook`. */
async function writeHook(dir: string, name: string): Promise<string> {
  await mkdir(join(dir, ".codex"), { recursive: true });
  const path = join(dir, ".codex", "hooks.json");
  const hook = { type: "command", command: `touch ${marker(`${name}-hook`)}` };
  await writeFile(path, JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [hook] }] } }));
  return path;
}

/**
 * A project skeleton in `dir`: `.git`, `.codex/config.toml` (model `<name>-model`, an MCP server
 * that touches marker NAME), `.codex/hooks.json` (marker `<name>-hook`), an AGENTS.md saying
 * `<TEXT>-AGENTS`, a skill described as `<TEXT>-SKILL` and a project memory `<TEXT>-MEMORY`;
 * owned by `uid` when given.
 */
async function plantProject(dir: string, name: string, text: string, uid?: number): Promise<void> {
  await mkdir(join(dir, ".git"), { recursive: true });
  const hooks = await writeHook(dir, name);
  const skill = join(dir, ".agents", "skills", name);
  await mkdir(skill, { recursive: true });
  await writeFile(join(skill, "SKILL.md"), `---\nname: ${name}\ndescription: ${text}-SKILL\n---\n\nbody\n`);
  const memories = join(dir, ".tscodex", "memories");
  await mkdir(memories, { recursive: true });
  await writeFile(join(memories, `${name}.md`), `${text}-MEMORY\n`);
  const config = join(dir, ".codex", "config.toml");
  await writeFile(
    config,
    [
      `model = "${name}-model"`,
      "[mcp_servers.planted]",
      'command = "sh"',
      `args = ["-c", ${JSON.stringify(`touch ${marker(name)}`)}]`,
      "",
    ].join("\n"),
  );
  await writeFile(join(dir, "AGENTS.md"), `${text}-AGENTS\n`);
  if (uid !== undefined)
    for (const path of [dir, join(dir, ".git"), join(dir, ".codex"), config, hooks, join(dir, "AGENTS.md")])
      await chown(path, uid, uid);
}

/** A world-writable sticky directory (like /tmp) inside the work dir. */
async function stickyDir(): Promise<string> {
  const dir = join(h.work, "shared");
  await mkdir(dir);
  await chmod(dir, 0o1777);
  return dir;
}

/** Runs exec in `cwd` (every hook that loads may run) against a model that answers "done"; what the model saw. */
async function run(cwd: string, args: string[] = []) {
  h.server.enqueue(turn(message("done")));
  const result = await h.exec(["--skip-git-repo-check", "--dangerously-bypass-hook-trust", ...args, "hi"], {
    cwd,
  });
  const request = h.server.requests[0];
  return {
    ...result,
    model: request?.body.model,
    prompt: JSON.stringify(request?.input ?? []),
  };
}

const trustEntries = async () => {
  const table = parse(await readFile(join(h.home, "config.toml"), "utf8")) as {
    projects?: Record<string, { trust_level?: string }>;
  };
  return table.projects ?? {};
};

describe("the project root is never decided by a directory another user controls", () => {
  it("a trusted child of a world-writable directory ignores the .git, config, hooks, AGENTS.md, skills and memories planted there", async () => {
    const shared = await stickyDir();
    await plantProject(shared, "planted", "PLANTED-INSTRUCTIONS", isRoot ? OTHER_UID : undefined);
    const child = join(shared, "child");
    await mkdir(child);
    await setProjectTrust(h.home, child);
    const result = await run(child);
    expect(result.code).toBe(0);
    expect(result.model).not.toBe("planted-model");
    expect(existsSync(marker("planted"))).toBe(false);
    expect(existsSync(marker("planted-hook"))).toBe(false);
    expect(result.prompt).not.toContain("PLANTED-INSTRUCTIONS");
  });

  it("exec --trust in that child records the child, not the world-writable parent", async () => {
    const shared = await stickyDir();
    // Even a .git the user owns: anyone may add a .codex/ or AGENTS.md beside it there.
    await plantProject(shared, "planted", "PLANTED-INSTRUCTIONS");
    const child = join(shared, "child");
    await mkdir(child);
    const result = await run(child, ["--trust"]);
    expect(result.code).toBe(0);
    expect(await trustEntries()).toEqual({ [child]: { trust_level: "trusted" } });
    expect(result.model).not.toBe("planted-model");
    expect(existsSync(marker("planted"))).toBe(false);
    // A project memory is stored with the child too, not in the shared parent.
    const added = await h.cli(["memories", "add", "--project", "note", "remember this"], { cwd: child });
    expect(added.code).toBe(0);
    expect(existsSync(join(child, ".tscodex", "memories", "note.md"))).toBe(true);
    expect(existsSync(join(shared, ".tscodex", "memories", "note.md"))).toBe(false);
  });

  it.skipIf(!isRoot)(
    "a parent owned by another user is not the project root, even when not world-writable",
    async () => {
      const theirs = join(h.work, "theirs");
      await mkdir(theirs);
      await plantProject(theirs, "planted", "PLANTED-INSTRUCTIONS", OTHER_UID);
      const child = join(theirs, "child");
      await mkdir(child);
      const result = await run(child, ["--trust"]);
      expect(result.code).toBe(0);
      expect(await trustEntries()).toEqual({ [child]: { trust_level: "trusted" } });
      expect(result.model).not.toBe("planted-model");
      expect(existsSync(marker("planted"))).toBe(false);
      expect(existsSync(marker("planted-hook"))).toBe(false);
      expect(result.prompt).not.toContain("PLANTED-INSTRUCTIONS");
      // Their repository is not the user's either when exec checks for one.
      const refused = await h.exec(["hi"], { cwd: child });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`${child} is not inside a git repository`);
      expect(refused.stderr).toContain("a .git another user owns");
    },
  );

  it.skipIf(!isRoot)(
    "another user's .codex/config.toml in the trusted directory itself is refused, with a warning",
    async () => {
      const shared = await stickyDir();
      await mkdir(join(shared, ".codex"));
      const planted = join(shared, ".codex", "config.toml");
      await writeFile(planted, 'model = "planted-model"\n');
      await chown(join(shared, ".codex"), OTHER_UID, OTHER_UID);
      await chown(planted, OTHER_UID, OTHER_UID);
      await setProjectTrust(h.home, shared);
      const result = await run(shared);
      expect(result.code).toBe(0);
      expect(result.model).not.toBe("planted-model");
      expect(result.stderr).toContain(`${planted} not loaded`);
      expect(result.stderr).toContain(`owned by uid ${OTHER_UID}`);
    },
  );

  it.skipIf(!isRoot)(
    "another user's .codex/hooks.json in the trusted directory itself never runs, with a warning",
    async () => {
      const shared = await stickyDir();
      const planted = await writeHook(shared, "planted");
      await chown(join(shared, ".codex"), OTHER_UID, OTHER_UID);
      await chown(planted, OTHER_UID, OTHER_UID);
      await setProjectTrust(h.home, shared);
      const result = await run(shared);
      expect(result.code).toBe(0);
      expect(existsSync(marker("planted-hook"))).toBe(false);
      expect(result.stderr).toContain(`${planted} not loaded: owned by uid ${OTHER_UID}`);
    },
  );

  it("a .codex/config.toml other users may write is refused, with a warning", async () => {
    const project = join(h.work, "project");
    await mkdir(join(project, ".codex"), { recursive: true });
    const file = join(project, ".codex", "config.toml");
    await writeFile(file, 'model = "planted-model"\n');
    await chmod(file, 0o666);
    await setProjectTrust(h.home, project);
    const result = await run(project);
    expect(result.code).toBe(0);
    expect(result.model).not.toBe("planted-model");
    expect(result.stderr).toContain(`${file} not loaded`);
    expect(result.stderr).toContain("writable by other users");
  });

  it("the user's own repository: --trust from a subdirectory records the git root and loads root to cwd", async () => {
    const repo = join(h.work, "repo");
    await mkdir(repo);
    execFileSync("git", ["init", "-q", repo]);
    await plantProject(repo, "own", "OWN-INSTRUCTIONS");
    const sub = join(repo, "sub");
    await mkdir(join(sub, ".codex"), { recursive: true });
    await writeFile(join(sub, ".codex", "config.toml"), 'model = "sub-model"\n');
    const result = await run(sub, ["--trust"]);
    expect(result.code).toBe(0);
    expect(await trustEntries()).toEqual({ [repo]: { trust_level: "trusted" } });
    expect(result.model).toBe("sub-model");
    expect(existsSync(marker("own"))).toBe(true);
    expect(existsSync(marker("own-hook"))).toBe(true);
    expect(result.prompt).toContain("OWN-INSTRUCTIONS-AGENTS");
    expect(result.prompt).toContain("OWN-INSTRUCTIONS-SKILL");
    expect(result.prompt).toContain("OWN-INSTRUCTIONS-MEMORY");
    expect(result.stderr).not.toContain("not loaded");
  });
});
