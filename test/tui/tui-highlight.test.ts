/**
 * Syntax-highlighted code blocks in agent messages (tmux, fake model): keywords, strings,
 * comments and numbers in their colours per the fence's language, block comments across lines,
 * diff fences as coloured diffs, an unknown language left plain.
 */
import { describe, expect, it } from "vitest";
import { highlighter } from "../../src/frontends/tui/highlight.js";
import { createStyle } from "../../src/frontends/tui/style.js";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();

const open = useTmuxTerminal(h);

const ESC = "\x1b";
const answer = [
  "Two snippets:",
  "```ts",
  'const greeting = "hi"; // say it',
  "return 42;",
  "```",
  "```python",
  "def f(): return 'x'  # py",
  "```",
  "```diff",
  "-old line",
  "+new line",
  "```",
  "done",
].join("\n");

describe("code blocks in agent messages", () => {
  it("colours keywords, strings, comments and numbers by the fence's language", async () => {
    h.server.enqueue(turn(message(answer)));
    const t = await open(["show code"]);
    const screen = await t.waitFor("done");
    expect(screen).toContain('const greeting = "hi"; // say it');
    const coloured = await t.capture(true);
    expect(coloured).toContain(`${ESC}[35mconst${ESC}[39m greeting`);
    expect(coloured).toContain(`${ESC}[32m"hi"${ESC}[39m`);
    // tmux merges the dim and italic codes into one.
    expect(coloured).toContain(`${ESC}[2;3m// say it`);
    expect(coloured).toContain(`${ESC}[33m42${ESC}[39m`);
    expect(coloured).toContain(`${ESC}[35mdef${ESC}[39m f()`);
    expect(coloured).toContain(`${ESC}[2;3m# py`);
    expect(coloured).toContain(`${ESC}[31m-old line`);
    expect(coloured).toContain(`${ESC}[32m+new line`);
  });
});

describe("highlighter", () => {
  const style = createStyle(true);
  const plain = createStyle(false);

  it("carries a block comment across lines and leaves keywords inside strings alone", () => {
    const line = highlighter("rust", style);
    expect(line("/* start")).toBe(
      `${ESC}[2m${ESC}[3m/*${ESC}[23m${ESC}[22m${ESC}[2m${ESC}[3m start${ESC}[23m${ESC}[22m`,
    );
    expect(line("fn end */ fn")).toContain(
      `${ESC}[2m${ESC}[3mfn end */${ESC}[23m${ESC}[22m ${ESC}[35mfn${ESC}[39m`,
    );
    expect(highlighter("js", style)('"if" x1')).toBe(`${ESC}[32m"if"${ESC}[39m x1`);
  });

  it("leaves unknown languages and colourless terminals plain", () => {
    expect(highlighter("brainfuck", style)("const 1")).toBe("const 1");
    expect(highlighter("ts", plain)('const x = "1"')).toBe('const x = "1"');
  });
});
