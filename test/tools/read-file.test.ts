/**
 * read_file: every recorded Codex 0.89 call replayed on a rebuilt workspace, then the cases
 * the reference does not cover (CRLF, invalid UTF-8, multi-byte cuts, indentation options).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileTool } from "../../src/tools/builtin/read-file.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { buildExpTools, callTool, type RecordedCall, recordedCalls, relocate } from "./file-tools-support.js";

let dir: TempDir;
let reference: RecordedCall[];
const tool = readFileTool();
const read = (args: object | string) => callTool(tool, args, dir.path).then((result) => result.text);

beforeAll(async () => {
  dir = await tmpdir("tscodex-read-file-");
  await buildExpTools(dir.path);
  reference = await recordedCalls("read_file");
});
afterAll(() => dir.cleanup());

describe("read_file matches Codex 0.89", () => {
  it("replays every recorded call", async () => {
    expect(reference.length).toBeGreaterThanOrEqual(10);
    for (const call of reference) {
      const got = await read(relocate(call.arguments, dir.path));
      expect(got, call.arguments).toBe(relocate(call.output, dir.path));
    }
  });

  it("has the reference's parameters", () => {
    expect(tool.spec).toMatchObject({
      type: "function",
      name: "read_file",
      strict: false,
      parameters: {
        type: "object",
        required: ["file_path"],
        additionalProperties: false,
        properties: {
          file_path: { type: "string" },
          indentation: {
            type: "object",
            additionalProperties: false,
            properties: {
              anchor_line: { type: "number" },
              include_header: { type: "boolean" },
              include_siblings: { type: "boolean" },
              max_levels: { type: "number" },
              max_lines: { type: "number" },
            },
          },
          limit: { type: "number" },
          mode: { type: "string" },
          offset: { type: "number" },
        },
      },
    });
    const params = (tool.spec as unknown as { parameters: { properties: Record<string, unknown> } })
      .parameters;
    expect(Object.keys(params.properties)).toEqual(["file_path", "indentation", "limit", "mode", "offset"]);
    expect(params.properties.mode).not.toHaveProperty("enum");
  });
});

describe("read_file slices", () => {
  it("strips CRLF, decodes invalid UTF-8 as U+FFFD, counts a last line without newline", async () => {
    const path = join(dir.path, "mixed.txt");
    await writeFile(
      path,
      Buffer.concat([Buffer.from("one\r\n"), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from("last")]),
    );
    expect(await read({ file_path: path })).toBe("L1: one\nL2: \uFFFD\uFFFD\nL3: last");
  });

  it("cuts long lines on a character boundary", async () => {
    const path = join(dir.path, "wide.txt");
    await writeFile(path, `${"é".repeat(300)}\n`);
    expect(await read({ file_path: path })).toBe(`L1: ${"é".repeat(250)}`);
    await writeFile(path, `a${"é".repeat(300)}\n`);
    expect(await read({ file_path: path })).toBe(`L1: a${"é".repeat(249)}`);
  });

  it("reads far into a big file and stops at the limit", async () => {
    const path = join(dir.path, "big.txt");
    await writeFile(path, Array.from({ length: 100_000 }, (_, i) => `row ${i + 1}`).join("\n"));
    expect(await read({ file_path: path, offset: 99_999, limit: 5 })).toBe(
      "L99999: row 99999\nL100000: row 100000",
    );
    expect(await read({ file_path: path, offset: 100_001 })).toBe("offset exceeds file length");
  });

  it("answers errors the model can act on", async () => {
    expect(await read({ file_path: join(dir.path, "empty.txt"), offset: 1 })).toMatch(
      /^failed to read file: No such/,
    );
    await writeFile(join(dir.path, "empty.txt"), "");
    expect(await read({ file_path: join(dir.path, "empty.txt") })).toBe("offset exceeds file length");
    expect(await read({ file_path: dir.path })).toBe("failed to read file: Is a directory (os error 21)");
    expect(await read({ file_path: "x", mode: "pages" })).toBe(
      "failed to parse function arguments: unknown variant `pages`, expected `slice` or `indentation` at line 1 column 31",
    );
    expect(await read({ file_path: "/x", offset: -1 })).toMatch(
      /^failed to parse function arguments: invalid value: integer `-1`, expected usize/,
    );
  });
});

describe("read_file indentation mode", () => {
  const RUST = ["fn outer() {", "    if cond {", "        inner();", "    }", "    tail();", "}", ""].join(
    "\n",
  );
  const SIBLINGS = [
    "fn wrapper() {",
    "    // first",
    "    if first {",
    "        do_first();",
    "    }",
    "    if second {",
    "        do_second();",
    "    }",
    "}",
    "",
  ].join("\n");

  const block = async (content: string, args: Record<string, unknown>) => {
    const path = join(dir.path, "block.src");
    await writeFile(path, content);
    return read({ file_path: path, mode: "indentation", ...args });
  };

  it("one level: the enclosing block with its header and closer", async () => {
    expect(await block(RUST, { offset: 3, indentation: { max_levels: 1 } })).toBe(
      "L2:     if cond {\nL3:         inner();\nL4:     }",
    );
  });

  it("no level limit: up to the outermost block", async () => {
    expect(await block(RUST, { offset: 3 })).toBe(
      "L1: fn outer() {\nL2:     if cond {\nL3:         inner();\nL4:     }\nL5:     tail();\nL6: }",
    );
  });

  it("header comments come along unless include_header is false; siblings only when asked", async () => {
    const base = { offset: 4, indentation: { max_levels: 1 } };
    expect(await block(SIBLINGS, base)).toBe(
      "L2:     // first\nL3:     if first {\nL4:         do_first();\nL5:     }",
    );
    expect(await block(SIBLINGS, { ...base, indentation: { max_levels: 1, include_header: false } })).toBe(
      "L3:     if first {\nL4:         do_first();\nL5:     }",
    );
    expect(await block(SIBLINGS, { ...base, indentation: { max_levels: 1, include_siblings: true } })).toBe(
      "L2:     // first\nL3:     if first {\nL4:         do_first();\nL5:     }\nL6:     if second {\nL7:         do_second();\nL8:     }",
    );
  });

  it("max_lines keeps the read centred on the anchor", async () => {
    expect(await block(RUST, { offset: 3, indentation: { max_lines: 3 } })).toBe(
      "L2:     if cond {\nL3:         inner();\nL4:     }",
    );
    expect(await block(RUST, { offset: 3, indentation: { max_lines: 1 } })).toBe("L3:         inner();");
    expect(await block(RUST, { offset: 3, limit: 2 })).toBe("L2:     if cond {\nL3:         inner();");
  });

  it("an anchor_line overrides offset; its errors are named", async () => {
    expect(await block(RUST, { offset: 1, indentation: { anchor_line: 3, max_levels: 1 } })).toBe(
      "L2:     if cond {\nL3:         inner();\nL4:     }",
    );
    expect(await block(RUST, { indentation: { anchor_line: 0 } })).toBe(
      "anchor_line must be a 1-indexed line number",
    );
    expect(await block(RUST, { offset: 40 })).toBe("anchor_line exceeds file length");
    expect(await block(RUST, { offset: 3, indentation: { max_lines: 0 } })).toBe(
      "max_lines must be greater than zero",
    );
  });

  it("tabs count four columns; blank lines inside a block stay, at its ends go", async () => {
    const tabs = ["class A:", "\tdef f():", "\t\tx = 1", "", "\t\ty = 2", "", "x = 2", ""].join("\n");
    expect(await block(tabs, { offset: 5, indentation: { max_levels: 1 } })).toBe(
      "L2: \tdef f():\nL3: \t\tx = 1\nL4: \nL5: \t\ty = 2",
    );
  });

  it("reads only a window around the anchor of a huge file", async () => {
    const lines = ["class Big:"];
    for (let i = 0; i < 50_000; i++) lines.push(`    def m${i}(self):`, "        return 1");
    // As in Codex, the walk runs on into the neighbouring methods' bodies (deeper than the floor).
    const text = await block(lines.join("\n"), { offset: 5, indentation: { max_levels: 1 } });
    expect(text).toBe(
      "L3:         return 1\nL4:     def m1(self):\nL5:         return 1\nL6:     def m2(self):\nL7:         return 1",
    );
  });
});
