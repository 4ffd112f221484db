/**
 * The front matter parser on a cut read (skill-file.ts reads only a SKILL.md's first 64 KiB):
 * a front matter that ends within the read is parsed as usual; one that does not end there, or
 * whose closing `---` is only the cut last line, is refused with the bound as the reason.
 */
import { describe, expect, it } from "vitest";
import { parseSkillFrontMatter } from "../../src/prompt/skill-front-matter.js";

const CUT = 64 * 1024;

describe("parseSkillFrontMatter on a cut read", () => {
  it("parses a front matter that ends within the read", () => {
    const text = `---\nname: a\ndescription: d\n---\n${"x".repeat(100)}`;
    expect(parseSkillFrontMatter(text, "dir", CUT)).toEqual({ name: "a", description: "d" });
  });

  it("refuses one that does not end within the read, naming the bound", () => {
    expect(() => parseSkillFrontMatter("---\nname: a\ndescription: d\nmore: x", "dir", CUT)).toThrow(
      "frontmatter does not end within the first 64 KiB",
    );
  });

  it("does not take a cut last line for the closing ---", () => {
    // The file goes on past the read: its last line may be `----` or `--- x`, not the delimiter.
    expect(() => parseSkillFrontMatter("---\nname: a\ndescription: d\n---", "dir", CUT)).toThrow(
      "frontmatter does not end within the first 64 KiB",
    );
    expect(parseSkillFrontMatter("---\nname: a\ndescription: d\n---", "dir")).toEqual({
      name: "a",
      description: "d",
    });
  });

  it("keeps Codex's reason for a file with no front matter at all", () => {
    expect(() => parseSkillFrontMatter("# body only\n", "dir", CUT)).toThrow(
      "missing YAML frontmatter delimited by ---",
    );
  });
});
