/**
 * Huge and odd SKILL.md files, through the built CLI: a 400 MB SKILL.md (sparse, so it costs no
 * disk) must neither be read whole at discovery nor when a `$name` mention loads its body, a
 * front matter that does not end within the bound is an invalid skill, and a FIFO named SKILL.md
 * does not hang discovery. The CLI's peak RSS (VmHWM, polled) shows nothing big was read.
 */
import { execFileSync } from "node:child_process";
import { mkdir, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { messageText, type ResponseItem } from "../../src/protocol/items.js";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";

const h = useExecHarness({ execArgs: ["--skip-git-repo-check"] });

const HUGE = 400 * 1024 * 1024;
/** Well under the 300+ MB a whole read of the huge file costs; a bare CLI run stays near 100 MB. */
const PEAK_RSS_LIMIT_KB = 200 * 1024;

async function skillFile(dir: string, text: string, size?: number): Promise<string> {
  const root = join(h.home, "skills");
  await mkdir(join(root, dir), { recursive: true });
  const path = join(root, dir, "SKILL.md");
  await writeFile(path, text);
  // Extending with truncate leaves a hole: zeros on read, no blocks on disk.
  if (size !== undefined) await truncate(path, size);
  return path;
}

/** The normal skill, a 400 MB one with valid front matter, a 400 MB one whose front matter never ends, a FIFO. */
async function oddSkills(): Promise<{ hugePath: string; endlessPath: string; fifoPath: string }> {
  await skillFile("normal", "---\nname: normal\ndescription: A normal skill N1\n---\n\nBODY-MARKER-normal\n");
  const hugePath = await skillFile(
    "huge",
    "---\nname: huge\ndescription: A huge skill H1\n---\n\nBODY-MARKER-huge\n",
    HUGE,
  );
  const endlessPath = await skillFile("endless", "---\nname: endless\ndescription: never closed\n", HUGE);
  await mkdir(join(h.home, "skills", "fifo"), { recursive: true });
  const fifoPath = join(h.home, "skills", "fifo", "SKILL.md");
  execFileSync("mkfifo", [fifoPath]);
  return { hugePath, endlessPath, fifoPath };
}

function userMessages(input: readonly ResponseItem[]): string[] {
  return input.flatMap((item) =>
    item.type === "message" && item.role === "user" ? [messageText(item)] : [],
  );
}

describe("skills with huge or odd SKILL.md files", () => {
  it("`skills list` reads only the front matter: lists the normal and the huge skill, reports the unended and the FIFO ones, stays small", async () => {
    const { endlessPath, fifoPath } = await oddSkills();
    const result = await h.cli(["skills", "list", "--json"]);
    expect(result.code).toBe(0);
    const skills = JSON.parse(result.stdout) as { name: string }[];
    expect(skills.map((skill) => skill.name)).toEqual(["huge", "normal"]);
    expect(result.stderr).toContain(
      `failed to load skill ${endlessPath}: frontmatter does not end within the first 64 KiB`,
    );
    expect(result.stderr).toContain(`failed to load skill ${fifoPath}: not a regular file`);
    expect(result.peakRssKb).toBeGreaterThan(0);
    expect(result.peakRssKb).toBeLessThan(PEAK_RSS_LIMIT_KB);
  });

  it("a $mention of a skill whose SKILL.md is past 1 MiB is refused with a warning; the normal one is injected; the run stays small", async () => {
    const { hugePath } = await oddSkills();
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["use $huge and $normal"]);
    expect(result.code).toBe(0);
    const users = userMessages(h.server.requests[0]?.input ?? []);
    expect(users.some((text) => text.includes("BODY-MARKER-normal"))).toBe(true);
    expect(users.some((text) => text.includes("<name>huge</name>"))).toBe(false);
    expect(result.stderr).toContain(
      `skill huge not loaded: ${hugePath} is larger than the 1 MiB a SKILL.md may have`,
    );
    expect(result.peakRssKb).toBeGreaterThan(0);
    expect(result.peakRssKb).toBeLessThan(PEAK_RSS_LIMIT_KB);
  });
});
