/**
 * Renders `tmux capture-pane -e -p` output (text with SGR colour codes) to an RGB image, cell by
 * cell, with GNU Unifont's 8x16 bitmap glyphs read from its `.hex` file (Debian's `unifont`
 * package: /usr/share/unifont/unifont.hex). A glyph Unifont draws 16 pixels wide for a
 * one-cell character (✔) is squeezed into the cell by OR-ing column pairs; East Asian wide
 * characters take two cells. Bold draws the glyph twice a pixel apart, dim mixes the colour
 * halfway to the background, underline is the cell's 15th pixel row.
 */
import { readFileSync } from "node:fs";
import type { RgbImage } from "./png.js";

export const CELL_WIDTH = 8;
export const CELL_HEIGHT = 16;
export const UNIFONT_HEX = "/usr/share/unifont/unifont.hex";

type Rgb = readonly [number, number, number];

export const BACKGROUND: Rgb = [0x28, 0x2c, 0x34];
export const FOREGROUND: Rgb = [0xdc, 0xdf, 0xe4];
/** The 16 ANSI colours (normal, then bright), after the One Dark theme. */
export const ANSI_COLOURS: readonly Rgb[] = [
  [0x3f, 0x44, 0x51],
  [0xe0, 0x6c, 0x75],
  [0x98, 0xc3, 0x79],
  [0xe5, 0xc0, 0x7b],
  [0x61, 0xaf, 0xef],
  [0xc6, 0x78, 0xdd],
  [0x56, 0xb6, 0xc2],
  [0xdc, 0xdf, 0xe4],
  [0x5c, 0x63, 0x70],
  [0xef, 0x87, 0x8f],
  [0xa5, 0xe0, 0x75],
  [0xff, 0xd6, 0x8a],
  [0x74, 0xc0, 0xff],
  [0xd6, 0x8f, 0xef],
  [0x6e, 0xd0, 0xdc],
  [0xff, 0xff, 0xff],
];

/** A glyph: `rows[y]` holds the pixels of row y, the leftmost in the highest of `width` bits. */
export interface Glyph {
  width: 8 | 16;
  rows: number[];
}

/** Parses Unifont's `.hex` format: `CODEPOINT:HEX` per line, 32 hex digits (8x16) or 64 (16x16). */
export function parseHexFont(text: string): Map<number, Glyph> {
  const glyphs = new Map<number, Glyph>();
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const bits = line.slice(colon + 1).trim();
    const width = bits.length === 64 ? 16 : bits.length === 32 ? 8 : 0;
    if (width === 0) continue;
    const digits = width / 4;
    const rows: number[] = [];
    for (let y = 0; y < CELL_HEIGHT; y++)
      rows.push(Number.parseInt(bits.slice(y * digits, (y + 1) * digits), 16));
    glyphs.set(Number.parseInt(line.slice(0, colon), 16), { width, rows });
  }
  return glyphs;
}

export function loadUnifont(path = UNIFONT_HEX): Map<number, Glyph> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new Error(`no bitmap font at ${path}: install Debian's unifont package (apt-get install unifont)`);
  }
  return parseHexFont(text);
}

interface Pen {
  fg: Rgb | null;
  bg: Rgb | null;
  bold: boolean;
  dim: boolean;
  underline: boolean;
  inverse: boolean;
}

export interface Cell extends Pen {
  char: string;
  /** 2 for the first cell of a wide character (the next cell is its continuation). */
  span: 1 | 2;
}

const plainPen = (): Pen => ({
  fg: null,
  bg: null,
  bold: false,
  dim: false,
  underline: false,
  inverse: false,
});

/** xterm's 256-colour palette: the 16 ANSI colours, a 6x6x6 cube, then 24 greys. */
function colour256(n: number): Rgb {
  if (n < 16) return ANSI_COLOURS[n] as Rgb;
  if (n < 232) {
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    const i = n - 16;
    return [level(Math.floor(i / 36)), level(Math.floor(i / 6) % 6), level(i % 6)];
  }
  const grey = 8 + (n - 232) * 10;
  return [grey, grey, grey];
}

/** Applies one SGR sequence's parameters to the pen. */
function applySgr(pen: Pen, params: number[]): void {
  for (let i = 0; i < params.length; i++) {
    const code = params[i] as number;
    if (code === 0) Object.assign(pen, plainPen());
    else if (code === 1) pen.bold = true;
    else if (code === 2) pen.dim = true;
    else if (code === 4) pen.underline = true;
    else if (code === 7) pen.inverse = true;
    else if (code === 22) pen.bold = pen.dim = false;
    else if (code === 24) pen.underline = false;
    else if (code === 27) pen.inverse = false;
    else if (code >= 30 && code <= 37) pen.fg = ANSI_COLOURS[code - 30] as Rgb;
    else if (code >= 90 && code <= 97) pen.fg = ANSI_COLOURS[code - 90 + 8] as Rgb;
    else if (code >= 40 && code <= 47) pen.bg = ANSI_COLOURS[code - 40] as Rgb;
    else if (code >= 100 && code <= 107) pen.bg = ANSI_COLOURS[code - 100 + 8] as Rgb;
    else if (code === 39) pen.fg = null;
    else if (code === 49) pen.bg = null;
    else if (code === 38 || code === 48) {
      let colour: Rgb | null = null;
      if (params[i + 1] === 5) {
        colour = colour256(params[i + 2] ?? 0);
        i += 2;
      } else if (params[i + 1] === 2) {
        colour = [params[i + 2] ?? 0, params[i + 3] ?? 0, params[i + 4] ?? 0];
        i += 4;
      }
      if (code === 38) pen.fg = colour;
      else pen.bg = colour;
    }
  }
}

export function isWide(codePoint: number): boolean {
  return (
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf && codePoint !== 0x303f) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1f64f) ||
    (codePoint >= 0x1f900 && codePoint <= 0x1f9ff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd)
  );
}

/**
 * Reads the escape sequence at `line[at]` (ESC); returns where the text goes on. Only SGR
 * (`CSI … m`) changes anything; other CSI sequences and OSC strings (ended by BEL or ST) are skipped.
 */
function skipEscape(line: string, at: number, pen: Pen): number {
  const kind = line[at + 1];
  if (kind === "[") {
    let end = at + 2;
    while (end < line.length && !/[@-~]/.test(line[end] as string)) end++;
    if (line[end] === "m") {
      const params = line.slice(at + 2, end) || "0";
      applySgr(
        pen,
        params.split(/[;:]/).map((part) => Number(part || 0)),
      );
    }
    return end + 1;
  }
  if (kind === "]") {
    const bel = line.indexOf("\x07", at);
    const st = line.indexOf("\x1b\\", at + 2);
    const ends = [bel < 0 ? -1 : bel + 1, st < 0 ? -1 : st + 2].filter((n) => n > 0);
    return ends.length > 0 ? Math.min(...ends) : line.length;
  }
  return at + 2;
}

/**
 * The capture as a grid of `rows` x `columns` cells (lines beyond are dropped, short ones padded).
 * The pen carries across lines, as in a terminal.
 */
export function parseCapture(capture: string, columns: number, rows: number): Cell[][] {
  const pen = plainPen();
  const grid: Cell[][] = [];
  const lines = capture.replace(/\n$/, "").split("\n");
  for (let y = 0; y < rows; y++) {
    const line = lines[y] ?? "";
    const row: Cell[] = [];
    let i = 0;
    while (i < line.length) {
      if (line[i] === "\x1b") {
        i = skipEscape(line, i, pen);
        continue;
      }
      const codePoint = line.codePointAt(i) as number;
      const char = String.fromCodePoint(codePoint);
      i += char.length;
      if (codePoint < 0x20 || (codePoint >= 0x300 && codePoint <= 0x36f)) continue;
      const wide = isWide(codePoint);
      row.push({ ...pen, char, span: wide ? 2 : 1 });
      if (wide) row.push({ ...pen, char: "", span: 1 });
    }
    while (row.length < columns) row.push({ ...plainPen(), char: " ", span: 1 });
    grid.push(row.slice(0, columns));
  }
  return grid;
}

const mix = (a: Rgb, b: Rgb, t: number): Rgb => [
  Math.round(a[0] + (b[0] - a[0]) * t),
  Math.round(a[1] + (b[1] - a[1]) * t),
  Math.round(a[2] + (b[2] - a[2]) * t),
];

/** A glyph's pixel at (x, y) of a cell `cells` wide (a 16-pixel glyph in one cell is squeezed). */
function glyphPixel(glyph: Glyph, x: number, y: number, cells: 1 | 2): boolean {
  const row = glyph.rows[y] ?? 0;
  if (glyph.width === 8) return cells === 1 && x < 8 ? ((row >> (7 - x)) & 1) === 1 : false;
  if (cells === 2) return ((row >> (15 - x)) & 1) === 1;
  return ((row >> (15 - 2 * x)) & 3) !== 0;
}

/** A stand-in for characters the font lacks: a box. */
const MISSING: Glyph = {
  width: 8,
  rows: [0, 0, 0x7e, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x42, 0x7e, 0, 0, 0],
};

export interface RenderOptions {
  columns: number;
  rows: number;
  /** Pixels of background around the cells. */
  padding?: number;
  font: Map<number, Glyph>;
}

export function renderCapture(capture: string, options: RenderOptions): RgbImage {
  const padding = options.padding ?? 12;
  const width = options.columns * CELL_WIDTH + 2 * padding;
  const height = options.rows * CELL_HEIGHT + 2 * padding;
  const pixels = new Uint8Array(width * height * 3);
  const put = (x: number, y: number, colour: Rgb) => {
    if (x >= width || y >= height) return;
    const at = (y * width + x) * 3;
    pixels[at] = colour[0];
    pixels[at + 1] = colour[1];
    pixels[at + 2] = colour[2];
  };
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) put(x, y, BACKGROUND);
  const grid = parseCapture(capture, options.columns, options.rows);
  grid.forEach((row, cy) => {
    row.forEach((cell, cx) => {
      if (cell.char === "") return; // the second half of a wide character
      let fg = cell.fg ?? FOREGROUND;
      let bg = cell.bg ?? BACKGROUND;
      if (cell.inverse) [fg, bg] = [bg, fg];
      if (cell.dim) fg = mix(fg, bg, 0.45);
      const codePoint = cell.char.codePointAt(0) as number;
      const glyph = codePoint === 0x20 ? null : (options.font.get(codePoint) ?? MISSING);
      const cellPixels = cell.span * CELL_WIDTH;
      const left = padding + cx * CELL_WIDTH;
      const top = padding + cy * CELL_HEIGHT;
      for (let y = 0; y < CELL_HEIGHT; y++) {
        for (let x = 0; x < cellPixels; x++) {
          const on =
            glyph !== null &&
            (glyphPixel(glyph, x, y, cell.span) ||
              (cell.bold && x > 0 && glyphPixel(glyph, x - 1, y, cell.span)));
          const underline = cell.underline && y === CELL_HEIGHT - 2;
          put(left + x, top + y, on || underline ? fg : bg);
        }
      }
    });
  });
  return { width, height, pixels };
}
