/**
 * The composer's `@` file completion in the terminal UI (tmux, fake model): `@` and a fuzzy
 * prefix list the cwd's matching files (git-ignored ones left out), Tab or Enter puts the picked
 * path in place of `@word`, Up/Down pick another, Esc closes the menu and keeps the text.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mentionAt } from "../../src/frontends/tui/file-mentions.js";
import { useExecHarness } from "../support/exec-harness.js";
import { customToolCall, message, turn } from "../support/fake-model-server.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();

const open = useTmuxTerminal(h);

async function writeTree(root: string, files: string[]): Promise<void> {
  for (const file of files) {
    await mkdir(join(root, file, ".."), { recursive: true });
    await writeFile(join(root, file), `${file}\n`);
  }
}

describe("@ file completion", () => {
  it("lists matching files; Tab and Enter insert the picked path; the prompt carries it", async () => {
    await writeTree(h.work, [
      "src/frontends/tui/render-blocks.ts",
      "docs/rendering.md",
      "README.md",
      "ignored.log",
      ".gitignore",
    ]);
    await writeFile(join(h.work, ".gitignore"), "*.log\n");
    h.server.enqueue(turn(message("read them")));
    const t = await open([]);
    await t.waitFor("approval");

    await t.type("explain @rblk");
    let screen = await t.waitFor("› src/frontends/tui/render-blocks.ts");
    expect(screen).not.toContain("docs/rendering.md");
    await t.send("Tab");
    screen = await t.waitFor("› explain src/frontends/tui/render-blocks.ts");
    expect(screen).not.toMatch(/^› src\/frontends/m);

    await t.type("and @rend");
    screen = await t.waitFor(/› docs\/rendering\.md\n\s+src\/frontends\/tui\/render-blocks\.ts/);
    await t.send("Down");
    await t.waitFor(/ docs\/rendering\.md\n› src\/frontends\/tui\/render-blocks\.ts/);
    await t.send("Enter");
    await t.waitFor("render-blocks.ts and src/frontends/tui/render-blocks.ts");

    await t.type("not @ignored");
    screen = await t.waitFor("not @ignored");
    expect(screen).not.toContain("ignored.log");
    await t.send("BSpace");
    await t.type("d.lo");
    screen = await t.waitFor("not @ignored.lo");
    expect(screen).not.toContain("ignored.log");
    await t.send("C-u");
    await t.waitFor("Ask anything");

    await t.type("see @READ");
    await t.waitFor("› README.md");
    await t.send("Escape");
    screen = await t.waitFor((s) => s.includes("see @READ") && !s.includes("› README.md"));
    await t.send("C-u");
    await t.type("see @READ");
    await t.waitFor("› README.md");
    await t.send("Enter");
    await t.waitFor("see README.md");
    await t.send("Enter");
    await t.waitFor("read them");
    expect(JSON.stringify(h.server.requests[0]?.input.at(-1))).toContain("see README.md ");
  });
});

describe("@ file completion after a turn", () => {
  it("finds a file the turn wrote (the server lists the directory again after each turn)", async () => {
    await writeTree(h.work, ["README.md"]);
    const patch = "*** Begin Patch\n*** Add File: made-by-turn.txt\n+new\n*** End Patch\n";
    h.server.enqueue(turn(customToolCall("apply_patch", patch, "call_p")), turn(message("wrote it")));
    const t = await open(["-s", "workspace-write", "-a", "never"]);
    await t.waitFor("approval");
    await t.type("@READ");
    await t.waitFor("› README.md");
    await t.send("C-u");
    await t.type("write the file");
    await t.send("Enter");
    await t.waitFor("wrote it");
    await t.type("@made");
    await t.waitFor("› made-by-turn.txt");
  });
});

describe("mentionAt", () => {
  it("finds the @word at the cursor, not an address inside a word", () => {
    expect(mentionAt("look at @src/ma", 15)).toEqual({ start: 8, query: "src/ma" });
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionAt("mail me@host", 12)).toBeNull();
    expect(mentionAt("@abc def", 4)).toEqual({ start: 0, query: "abc" });
    expect(mentionAt("@abc def", 2)).toBeNull();
  });
});
