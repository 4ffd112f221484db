/**
 * Skills end to end: SKILL.md packs in Codex 0.169's roots, the `<skills_instructions>`
 * developer message, `$name` mentions, bad front matter and the budget, through the built CLI.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { messageText, type ResponseItem } from "../../src/protocol/items.js";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";

const h = useExecHarness({ execArgs: ["--skip-git-repo-check"] });

async function skill(
  root: string,
  dir: string,
  frontMatter: string,
  body = `# ${dir}\n\nBODY-MARKER-${dir}: do the thing.\n`,
) {
  await mkdir(join(root, dir), { recursive: true });
  await writeFile(join(root, dir, "SKILL.md"), `${frontMatter}${body}`);
}

const good = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n`;

function messages(input: readonly ResponseItem[], role: string): string[] {
  return input.flatMap((item) => (item.type === "message" && item.role === role ? [messageText(item)] : []));
}

async function fourRoots(): Promise<{ deeper: string }> {
  await skill(
    join(h.work, ".codex", "skills"),
    "codexdir-skill",
    good("codexdir-skill", "Codex dir skill description CS1"),
  );
  await skill(join(h.home, "skills"), "home-skill", good("home-skill", "Home skill description HS1"));
  await skill(join(h.home, ".agents", "skills"), "uh-skill", good("uh-skill", "User home agents skill UH1"));
  await skill(
    join(h.work, ".agents", "skills"),
    "agents-skill",
    good("agents-skill", "Agents dir skill description AS1"),
  );
  const deeper = join(h.work, "sub", "deeper");
  await mkdir(deeper, { recursive: true });
  return { deeper };
}

describe("skills", () => {
  it("lists every root's skills in Codex's <skills_instructions> message, never the bodies, from a subdirectory", async () => {
    const { deeper } = await fourRoots();
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["say hi"], { cwd: deeper })).code).toBe(0);
    const input = h.server.requests[0]?.input ?? [];
    const listing = messages(input, "developer").find((text) => text.startsWith("<skills_instructions>"));
    expect(listing).toBe(
      [
        "<skills_instructions>",
        "## Skills",
        "A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be expanded into an absolute path using the skill roots table.",
        "### Skill roots",
        `- \`r0\` = \`${join(h.work, ".codex", "skills")}\``,
        `- \`r1\` = \`${join(h.home, "skills")}\``,
        `- \`r2\` = \`${join(h.home, ".agents", "skills")}\``,
        `- \`r3\` = \`${join(h.work, ".agents", "skills")}\``,
        "### Available skills",
        "- agents-skill: Agents dir skill description AS1 (file: r3/agents-skill/SKILL.md)",
        "- codexdir-skill: Codex dir skill description CS1 (file: r0/codexdir-skill/SKILL.md)",
        "- home-skill: Home skill description HS1 (file: r1/home-skill/SKILL.md)",
        "- uh-skill: User home agents skill UH1 (file: r2/uh-skill/SKILL.md)",
        "</skills_instructions>",
      ].join("\n"),
    );
    expect(JSON.stringify(input)).not.toContain("BODY-MARKER");
    expect(h.server.requests[0]?.body.instructions).not.toContain("skills_instructions");
  });

  it("$name injects that skill's whole file as Codex's <skill> user message right after the prompt, only for mentioned skills", async () => {
    await fourRoots();
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["use $agents-skill please"])).code).toBe(0);
    const input = h.server.requests[0]?.input ?? [];
    const users = messages(input, "user");
    const prompt = users.indexOf("use $agents-skill please");
    const path = join(h.work, ".agents", "skills", "agents-skill", "SKILL.md");
    expect(users[prompt + 1]).toBe(
      `<skill>\n<name>agents-skill</name>\n<path>${path}</path>\n---\nname: agents-skill\ndescription: Agents dir skill description AS1\n---\n\n# agents-skill\n\nBODY-MARKER-agents-skill: do the thing.\n\n</skill>`,
    );
    expect(JSON.stringify(input)).not.toContain("BODY-MARKER-home-skill");
  });

  it("skips each bad SKILL.md with one warning naming the file and the reason; the run goes on", async () => {
    const root = join(h.home, "skills");
    await skill(root, "no-front", "", "# just a body\n");
    await skill(root, "unclosed", "---\nname: unclosed\ndescription: never closed\n");
    await skill(root, "no-desc", "---\nname: no-desc\n---\n");
    await skill(root, "long-name", `---\nname: ${"x".repeat(65)}\ndescription: too long\n---\n`);
    await skill(root, "bad-quote", '---\nname: "bad-quote\ndescription: q\n---\n');
    await skill(root, "tabbed", "---\nname: tabbed\ndescription: d\n\tmore: x\n---\n");
    await skill(root, "map-desc", "---\nname: map-desc\ndescription:\n  nested: value\n---\n");
    await skill(root, "lenient", "---\nname: [unclosed\ndescription: [a, b\n---\n");
    await skill(root, "defaulted", "---\ndescription: name from the directory\n---\n");
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    const reasons: [string, string][] = [
      ["no-front", "missing YAML frontmatter delimited by ---"],
      ["unclosed", "missing YAML frontmatter delimited by ---"],
      ["no-desc", "missing field `description`"],
      ["long-name", "invalid name: exceeds maximum length of 64 characters"],
      ["bad-quote", "invalid YAML: found unexpected end of stream"],
      ["tabbed", "invalid YAML: found a tab character that violates indentation"],
      ["map-desc", "invalid YAML: description: invalid type: map, expected a string"],
    ];
    for (const [dir, reason] of reasons) {
      const warning = `failed to load skill ${join(root, dir, "SKILL.md")}: ${reason}`;
      expect(result.stderr.split(warning).length - 1, dir).toBe(1);
    }
    const listing = messages(h.server.requests[0]?.input ?? [], "developer").find((text) =>
      text.startsWith("<skills_instructions>"),
    );
    expect(listing).toContain("- [unclosed: [a, b (file: r0/lenient/SKILL.md)");
    expect(listing).toContain("- defaulted: name from the directory (file: r0/defaulted/SKILL.md)");
  });

  it("keeps the listing within about 2% of the context window and names the rest as omitted", async () => {
    await h.writeConfig({ extra: "model_context_window = 4000" });
    for (let i = 0; i < 10; i++)
      await skill(
        join(h.home, "skills"),
        `skill-${i}`,
        good(`skill-${i}`, `description number ${i} ${"y".repeat(20)}`),
      );
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["go"])).code).toBe(0);
    const listing =
      messages(h.server.requests[0]?.input ?? [], "developer").find((text) =>
        text.startsWith("<skills_instructions>"),
      ) ?? "";
    const listed = listing.split("\n").filter((line) => /^- skill-\d/.test(line));
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length).toBeLessThan(10);
    expect(listing).toContain(
      `- (${10 - listed.length} more skills omitted to stay within the context budget)`,
    );
    expect(listed.join("\n").length).toBeLessThanOrEqual(4000 * 0.02 * 4);
  });

  it("reads $CODEX_HOME's skills and its .system skills too, system skills listed first", async () => {
    const codexHome = join(h.home, "codex-home");
    await skill(
      join(codexHome, "skills"),
      "codex-home-skill",
      good("codex-home-skill", "From CODEX_HOME CH1"),
    );
    await skill(join(codexHome, "skills", ".system"), "sys-skill", good("sys-skill", "System skill SY1"));
    await skill(join(h.home, "skills"), "home-skill", good("home-skill", "Home skill description HS1"));
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["go"], { env: { CODEX_HOME: codexHome } })).code).toBe(0);
    const listing =
      messages(h.server.requests[0]?.input ?? [], "developer").find((text) =>
        text.startsWith("<skills_instructions>"),
      ) ?? "";
    const lines = listing.split("\n");
    const roots = lines.filter((line) => line.startsWith("- `r"));
    expect(roots).toEqual([
      `- \`r0\` = \`${join(h.home, "skills")}\``,
      `- \`r1\` = \`${join(codexHome, "skills")}\``,
      `- \`r2\` = \`${join(codexHome, "skills", ".system")}\``,
    ]);
    expect(lines.filter((line) => /^- [a-z]/.test(line))).toEqual([
      "- sys-skill: System skill SY1 (file: r2/sys-skill/SKILL.md)",
      "- codex-home-skill: From CODEX_HOME CH1 (file: r1/codex-home-skill/SKILL.md)",
      "- home-skill: Home skill description HS1 (file: r0/home-skill/SKILL.md)",
    ]);
  });

  it("`tscodex skills list` shows name, description, path and root", async () => {
    await fourRoots();
    const result = await h.cli(["skills", "list", "--json"]);
    expect(result.code).toBe(0);
    const skills = JSON.parse(result.stdout) as { name: string; root: string; path: string }[];
    expect(skills.map((entry) => entry.name)).toEqual([
      "agents-skill",
      "codexdir-skill",
      "home-skill",
      "uh-skill",
    ]);
    expect(skills[1]).toEqual({
      name: "codexdir-skill",
      description: "Codex dir skill description CS1",
      path: join(h.work, ".codex", "skills", "codexdir-skill", "SKILL.md"),
      root: join(h.work, ".codex", "skills"),
      enabled: true,
    });
    const human = await h.cli(["skills", "list"]);
    expect(human.stdout).toContain(
      `home-skill: Home skill description HS1\n  path: ${join(h.home, "skills", "home-skill", "SKILL.md")}`,
    );
  });
});
