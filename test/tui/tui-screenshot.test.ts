/**
 * The README's terminal UI screenshots: the renderer turns a known `capture-pane -e` text into a
 * valid PNG of the right size with the right colours (decoded here independently of the
 * encoder), and `scripts/tui-screenshot.ts` still drives the real UI to a picture.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { inflateSync } from "node:zlib";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { encodePng } from "../../scripts/screenshot/png.js";
import {
  ANSI_COLOURS,
  BACKGROUND,
  CELL_HEIGHT,
  CELL_WIDTH,
  FOREGROUND,
  type Glyph,
  loadUnifont,
  renderCapture,
} from "../../scripts/screenshot/terminal-png.js";
import { noProgram, noUnifont } from "../support/skips.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const run = promisify(execFile);

/** Reads a PNG as the spec says: chunks with their CRCs, IHDR, the inflated scanlines. */
function decodePng(png: Buffer) {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString("ascii", at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    chunks.push({ type, data });
    at += 12 + length;
  }
  expect(chunks.map((c) => c.type)).toEqual(["IHDR", "IDAT", "IEND"]);
  // IEND's CRC is a constant of the format: it checks the CRC-32 without trusting our own.
  expect(png.subarray(-4).toString("hex")).toBe("ae426082");
  const header = chunks[0]?.data as Buffer;
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  expect([...header.subarray(8)]).toEqual([8, 2, 0, 0, 0]);
  const raw = inflateSync(chunks[1]?.data as Buffer);
  expect(raw.length).toBe((width * 3 + 1) * height);
  const pixel = (x: number, y: number) => {
    const row = y * (width * 3 + 1);
    expect(raw[row]).toBe(0); // filter None
    const at = row + 1 + x * 3;
    return [raw[at], raw[at + 1], raw[at + 2]];
  };
  return { width, height, pixel };
}

const ESC = "\x1b";

// A fresh machine may lack the font (and tmux): these tests then skip, saying why.
const noFont = noUnifont("the terminal screenshot tests");

describe.skipIf(noFont)("the terminal screenshot renderer", () => {
  let font: Map<number, Glyph>;
  beforeAll(() => {
    font = loadUnifont();
  });
  // Row 0: a green "+" then a bold word; row 1: an inverse cell; row 2: a blank line.
  const capture = `${ESC}[32m+${ESC}[39m ${ESC}[1mok${ESC}[0m\n${ESC}[7m ${ESC}[0m ✔\n\n`;

  it("draws a capture cell by cell into a valid PNG of the right size", () => {
    const png = encodePng(renderCapture(capture, { columns: 6, rows: 3, padding: 4, font }));
    const { width, height, pixel } = decodePng(png);
    expect(width).toBe(6 * CELL_WIDTH + 8);
    expect(height).toBe(3 * CELL_HEIGHT + 8);
    expect(pixel(0, 0)).toEqual([...BACKGROUND]);
    const cell = (column: number, row: number) => {
      const colours = new Set<string>();
      for (let y = 0; y < CELL_HEIGHT; y++)
        for (let x = 0; x < CELL_WIDTH; x++)
          colours.add(pixel(4 + column * CELL_WIDTH + x, 4 + row * CELL_HEIGHT + y).join(","));
      return colours;
    };
    // The "+" has green ink on the background, the space beside it none.
    expect(cell(0, 0)).toEqual(new Set([BACKGROUND.join(","), ANSI_COLOURS[2]?.join(",")]));
    expect(cell(1, 0)).toEqual(new Set([BACKGROUND.join(",")]));
    expect(cell(2, 0)).toContain(FOREGROUND.join(","));
    // Inverse: the cell is filled with the foreground colour.
    expect(cell(0, 1)).toEqual(new Set([FOREGROUND.join(",")]));
    // ✔ is 16 pixels wide in Unifont: squeezed into its one cell, with ink.
    expect(cell(2, 1)).toContain(FOREGROUND.join(","));
    expect(cell(3, 1)).toEqual(new Set([BACKGROUND.join(",")]));
    expect(cell(5, 2)).toEqual(new Set([BACKGROUND.join(",")]));
  });

  it("draws bold thicker than plain", () => {
    const ink = (text: string) => {
      const image = renderCapture(text, { columns: 2, rows: 1, padding: 0, font });
      return image.pixels.filter((value, i) => i % 3 === 0 && value === FOREGROUND[0]).length;
    };
    expect(ink(`${ESC}[1mok`)).toBeGreaterThan(ink("ok"));
  });
});

const noShots = noFont || noProgram("tmux", "scripts/tui-screenshot.ts's test");

describe.skipIf(noShots)("scripts/tui-screenshot.ts", () => {
  let out: TempDir | undefined;
  afterEach(() => out?.cleanup());

  it("drives the real UI against the fake model and writes small PNGs", async () => {
    out = await tmpdir("tscodex-shots-");
    await run(process.execPath, ["scripts/run-ts.mjs", "scripts/tui-screenshot.ts", out.path], {
      timeout: 60_000,
    });
    for (const name of ["tui-session.png", "tui-model-picker.png"]) {
      const png = await readFile(join(out.path, name));
      const { width, height } = decodePng(png);
      expect([width, height]).toEqual([80 * CELL_WIDTH + 24, 26 * CELL_HEIGHT + 24]);
      expect(png.length).toBeLessThan(300 * 1024);
    }
  });
});
