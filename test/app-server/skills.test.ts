/**
 * skills/list through the real app-server: a repo skill and a user skill with their scope and
 * path, and a skill with bad front matter reported as an error naming its file. Every message is
 * checked against Codex 0.169's schemas.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";

const h = useAppServerHarness();

async function skill(root: string, dir: string, text: string): Promise<string> {
  await mkdir(join(root, dir), { recursive: true });
  const path = join(root, dir, "SKILL.md");
  await writeFile(path, text);
  return path;
}

describe("app-server: skills", () => {
  it("lists each directory's skills with scope and path, and bad front matter as an error", async () => {
    const repoSkill = await skill(
      join(h.work, ".codex", "skills"),
      "repo-skill",
      "---\nname: repo-skill\ndescription: Repo skill R1\n---\n\nbody\n",
    );
    const userSkill = await skill(
      join(h.home, "skills"),
      "user-dir",
      "---\nname: user-skill\ndescription: User skill U1\n---\n\nbody\n",
    );
    const broken = await skill(join(h.home, "skills"), "broken", "---\nname: broken\n---\n");
    const client = await h.stdio();

    const listed = await client.call("skills/list", { cwds: [h.work], forceReload: true });
    expect(listed.data).toHaveLength(1);
    const [entry] = listed.data;
    expect(entry.cwd).toBe(h.work);
    expect(entry.skills).toEqual(
      expect.arrayContaining([
        { name: "repo-skill", description: "Repo skill R1", path: repoSkill, scope: "repo", enabled: true },
        { name: "user-skill", description: "User skill U1", path: userSkill, scope: "user", enabled: true },
      ]),
    );
    expect(entry.skills.map((s: { name: string }) => s.name)).not.toContain("broken");
    expect(entry.errors).toEqual([{ path: broken, message: expect.stringContaining("description") }]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});
