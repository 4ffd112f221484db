/**
 * shellSplit reads a command line back into its words as a POSIX shell does (the app-server
 * sends commands as one shellQuote'd string; exec --remote shows them as a local run does).
 */
import { describe, expect, it } from "vitest";
import { shellQuote, shellSplit } from "../../src/util/shell-quote.js";

describe("shellSplit", () => {
  it("is the inverse of shellQuote", () => {
    for (const argv of [
      ["/bin/bash", "-lc", "echo hi"],
      ["bash", "-lc", "printf '%s\\n' \"it's\" && ls -la"],
      ["printf", "", "a b", "tab\there", "new\nline", "$HOME", "back\\slash"],
    ]) {
      expect(shellSplit(shellQuote(argv))).toEqual(argv);
    }
  });

  it("reads double quotes, backslashes and runs of blanks as a shell does", () => {
    expect(shellSplit(`echo  "a \\"b\\" \\$x \\y"   c\\ d ''`)).toEqual(["echo", 'a "b" $x \\y', "c d", ""]);
    expect(shellSplit("   ")).toEqual([]);
  });
});
