import { describe, expect, it } from "vitest";
import { PatchParseError, parsePatch } from "../../src/apply-patch/index.js";

function parseError(text: string): PatchParseError {
  try {
    parsePatch(text);
  } catch (error) {
    if (error instanceof PatchParseError) return error;
    throw error;
  }
  throw new Error("expected a parse error");
}

describe("parsePatch", () => {
  it("parses every hunk kind", () => {
    const patch = parsePatch(
      [
        "*** Begin Patch",
        "*** Add File: a.txt",
        "+one",
        "+",
        "*** Delete File: b.txt",
        "*** Update File: c.py",
        "*** Move to: d.py",
        "@@ def f():",
        "-    pass",
        "+    return 1",
        "@@",
        " x",
        "*** End of File",
        "*** End Patch",
      ].join("\n"),
    );
    expect(patch.hunks).toEqual([
      { type: "add", path: "a.txt", contents: "one\n\n" },
      { type: "delete", path: "b.txt" },
      {
        type: "update",
        path: "c.py",
        movePath: "d.py",
        chunks: [
          { context: "def f():", oldLines: ["    pass"], newLines: ["    return 1"], isEndOfFile: false },
          { context: null, oldLines: ["x"], newLines: ["x"], isEndOfFile: true },
        ],
      },
    ]);
  });

  it("accepts an empty patch (planPatch rejects it)", () => {
    expect(parsePatch("*** Begin Patch\n*** End Patch").hunks).toEqual([]);
  });

  it("accepts heredoc wrappers with any quoting", () => {
    for (const opener of ["<<EOF", "<<'EOF'", '<<"EOF"']) {
      const patch = parsePatch(`${opener}\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF`);
      expect(patch.hunks).toEqual([{ type: "delete", path: "x" }]);
    }
  });

  it("reports the inner error of a heredoc-wrapped patch", () => {
    expect(parseError("<<'EOF'\n*** Begin Patch\n*** Delete File: x\nEOF").message).toBe(
      "apply_patch verification failed: invalid patch: The last line of the patch must be '*** End Patch'",
    );
  });

  it("tolerates padding around markers and hunk headers, and CRLF", () => {
    const patch = parsePatch("\n\t*** Begin Patch \r\n  *** Add File: a.txt  \r\n+x\r\n *** End Patch\r\n\n");
    expect(patch.hunks).toEqual([{ type: "add", path: "a.txt", contents: "x\n" }]);
  });

  it("treats an empty input as a missing end marker, like Codex", () => {
    expect(parseError("   \n").message).toBe(
      "apply_patch verification failed: invalid patch: The last line of the patch must be '*** End Patch'",
    );
    expect(parseError("*** Begin Patch").detail).toBe(
      "invalid patch: The last line of the patch must be '*** End Patch'",
    );
  });

  it("numbers hunk lines from the Begin line", () => {
    const error = parseError("*** Begin Patch\n*** Add File: a\n+x\n*** Frobnicate: b\n*** End Patch");
    expect(error.lineNumber).toBe(4);
    expect(error.detail).toMatch(
      /^invalid hunk at line 4, '\*\*\* Frobnicate: b' is not a valid hunk header/,
    );
  });

  it("ends an update's chunks at any line starting with *", () => {
    const error = parseError("*** Begin Patch\n*** Update File: a\n@@\n-x\n*/\n*** End Patch");
    expect(error.detail).toMatch(/^invalid hunk at line 5, '\*\/' is not a valid hunk header/);
  });

  it("keeps `@@ ` with nothing after it as an empty context line to find", () => {
    const patch = parsePatch("*** Begin Patch\n*** Update File: a\n@@ \n-x\n*** End Patch");
    expect(patch.hunks[0]).toMatchObject({ chunks: [{ context: "" }] });
  });

  it("does not trim the Move to line", () => {
    const patch = parsePatch("*** Begin Patch\n*** Update File: a\n *** Move to: b\n@@\n-x\n*** End Patch");
    // The indented line is not a Move: it is a context line of a first chunk without `@@`.
    expect(patch.hunks[0]).toMatchObject({
      movePath: null,
      chunks: [{ oldLines: ["*** Move to: b"] }, { oldLines: ["x"] }],
    });
  });
});
