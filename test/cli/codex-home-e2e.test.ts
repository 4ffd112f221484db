/**
 * A Codex user's home: with CODEX_HOME and TSCODEX_HOME unset, `~/.codex` (Codex's default home)
 * is read beside tscodex's `~/.tscodex` for hooks, skills, rules and AGENTS.md (reference
 * cli-parity.md Part 1 §13), tscodex's own home winning where both have one; nothing is ever
 * written into `~/.codex`. And `hooks trust` writes only what the next run reads without a
 * warning (§14).
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { writeHooksJson } from "../hooks/hook-fixtures.js";
import { writeFakeConfig } from "../support/cli.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";

// h.home is the user's $HOME here; tscodex's home is its .tscodex, Codex's its .codex.
const h = useExecHarness({ config: false, execArgs: ["-s", "danger-full-access"] });
const noHomeVars = { TSCODEX_HOME: "", CODEX_HOME: "" };
let tscodexHome: string;
let codexHome: string;

async function writeSkill(home: string, name: string, description: string): Promise<void> {
  await mkdir(join(home, "skills", name), { recursive: true });
  await writeFile(
    join(home, "skills", name, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${name}.\n`,
  );
}

/** Every file under `dir` with its text: what a run may not change. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const names = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  return Object.fromEntries(
    await Promise.all(names.map(async (path) => [path, await readFile(path, "utf8")])),
  );
}

beforeEach(async () => {
  tscodexHome = join(h.home, ".tscodex");
  codexHome = join(h.home, ".codex");
  await writeFakeConfig(tscodexHome, { baseUrl: h.server.url });
  await mkdir(join(codexHome, "rules"), { recursive: true });
});

describe("~/.codex beside ~/.tscodex", () => {
  it("applies ~/.codex's deny hook, skills and AGENTS.md, and never writes there", async () => {
    await writeHooksJson(codexHome, {
      PreToolUse: [{ matcher: "^Bash$", command: "echo HOMEDENY >&2; exit 2" }],
    });
    await writeSkill(codexHome, "release-notes", "Write release notes from the git log.");
    await writeFile(join(codexHome, "AGENTS.md"), "Codex home rule: answer in haiku.\n");
    const before = await snapshot(codexHome);

    h.server.enqueue(
      turn(functionCall("shell_command", { command: "touch home-denied.txt" }, "call_1")),
      turn(message("ok")),
    );
    const result = await h.exec(["--dangerously-bypass-hook-trust", "go"], { env: noHomeVars });
    expect(result.code, result.stderr).toBe(0);
    expect(h.outputOf(1, "call_1")).toBe(
      "Command blocked by PreToolUse hook: HOMEDENY. Command: touch home-denied.txt",
    );
    await expect(readFile(join(h.work, "home-denied.txt"))).rejects.toThrow();
    const first = JSON.stringify(h.server.requests[0]?.input);
    expect(first).toContain("- release-notes: Write release notes from the git log.");
    expect(first).toContain("Codex home rule: answer in haiku.");
    expect(await snapshot(codexHome)).toEqual(before);
  });

  it("applies ~/.codex/rules", async () => {
    await writeFile(
      join(codexHome, "rules", "ci.rules"),
      'prefix_rule(pattern = ["git", "push"], decision = "forbidden", justification = "pushes go through CI")\n',
    );
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "git push origin main" }, "call_1")),
      turn(message("ok")),
    );
    expect((await h.exec(["go"], { env: noHomeVars })).code).toBe(0);
    expect(h.outputOf(1, "call_1")).toBe(
      "command rejected: the exec policy forbids `git push`: pushes go through CI",
    );
  });

  it("lists ~/.codex's hooks and skills, and `hooks trust` records the trust in ~/.tscodex only", async () => {
    await writeHooksJson(codexHome, {
      PreToolUse: [{ matcher: "^Bash$", command: "echo HOMEDENY >&2; exit 2" }],
    });
    await writeSkill(codexHome, "release-notes", "Write release notes from the git log.");
    const before = await snapshot(codexHome);

    const hooks = await h.cli(["hooks", "list"], { env: noHomeVars });
    expect(hooks.stdout).toContain(join(codexHome, "hooks.json"));
    const skills = await h.cli(["skills", "list"], { env: noHomeVars });
    expect(skills.stdout).toContain("release-notes");

    expect((await h.cli(["hooks", "trust", "--all"], { env: noHomeVars })).code).toBe(0);
    expect(await snapshot(codexHome)).toEqual(before);
    expect(await readFile(join(tscodexHome, "config.toml"), "utf8")).toContain(
      `[hooks.state.${JSON.stringify(`${join(codexHome, "hooks.json")}:pre_tool_use:0:0`)}]`,
    );

    // Trusted now: the deny applies without the bypass flag, and nothing warns about the trust.
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "touch home-denied.txt" }, "call_1")),
      turn(message("ok")),
    );
    const result = await h.exec(["go"], { env: noHomeVars });
    expect(result.code, result.stderr).toBe(0);
    expect(h.outputOf(1, "call_1")).toBe(
      "Command blocked by PreToolUse hook: HOMEDENY. Command: touch home-denied.txt",
    );
    expect(result.stderr).not.toContain("unknown key");
  });

  it("prefers ~/.tscodex where both homes have a skill of one name or an AGENTS.md", async () => {
    await writeSkill(codexHome, "release-notes", "The Codex home's notes.");
    await writeSkill(tscodexHome, "release-notes", "The tscodex home's notes.");
    await writeSkill(codexHome, "only-codex", "Only in the Codex home.");
    await writeFile(join(codexHome, "AGENTS.md"), "From the Codex home.\n");
    await writeFile(join(tscodexHome, "AGENTS.md"), "From the tscodex home.\n");
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["go"], { env: noHomeVars })).code).toBe(0);
    const first = JSON.stringify(h.server.requests[0]?.input);
    expect(first).toContain("- release-notes: The tscodex home's notes.");
    expect(first).not.toContain("The Codex home's notes.");
    expect(first).toContain("- only-codex: Only in the Codex home.");
    expect(first).toContain("From the tscodex home.");
    expect(first).not.toContain("From the Codex home.");
  });
});

describe("hook trust in config.toml", () => {
  it("`hooks trust --all` on a [[hooks.X]] table leaves no unknown-key warning for the next run", async () => {
    await writeFakeConfig(tscodexHome, {
      baseUrl: h.server.url,
      extra: [
        "[[hooks.UserPromptSubmit]]",
        "[[hooks.UserPromptSubmit.hooks]]",
        'type = "command"',
        `command = "touch '${join(h.home, "prompt-hook-ran")}'"`,
      ].join("\n"),
    });
    expect((await h.cli(["hooks", "trust", "--all"], { env: noHomeVars })).code).toBe(0);
    expect(await readFile(join(tscodexHome, "config.toml"), "utf8")).toContain("[hooks.state.");
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["go"], { env: noHomeVars });
    expect(result.code, result.stderr).toBe(0);
    await readFile(join(h.home, "prompt-hook-ran"));
    expect(result.stderr).not.toContain("unknown key");
    // A key that really is unknown is still named.
    await writeFile(
      join(tscodexHome, "config.toml"),
      `${await readFile(join(tscodexHome, "config.toml"), "utf8")}\n[hooks.NoSuchEvent]\nx = 1\n`,
    );
    h.server.enqueue(turn(message("ok")));
    const again = await h.exec(["go"], { env: noHomeVars });
    expect(again.stderr).toContain("unknown key 'hooks.NoSuchEvent'");
    expect(again.stderr).not.toContain("unknown key 'hooks.state'");
  });
});
