/**
 * The small PNG codec behind view_image's scaling: every filter, colour type and bit depth
 * decodes to the same RGBA, encode/decode round-trips, downscaling averages.
 */
import { promisify } from "node:util";
import { crc32, deflate } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decodePng, downscale, encodePng, type RgbaImage } from "../../src/tools/files/png.js";

const deflateAsync = promisify(deflate);

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}

/** A PNG from unfiltered rows, each row filtered with `filter` (the forward filters, by the book). */
async function png(options: {
  width: number;
  height: number;
  depth: number;
  type: number;
  rows: number[][];
  filter: number;
  extra?: Buffer[];
}): Promise<Buffer> {
  const { width, height, depth, type, rows, filter } = options;
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[type] ?? 1;
  const bpp = Math.max(1, (channels * depth) >> 3);
  const filtered: number[] = [];
  rows.forEach((row, y) => {
    const prev = y > 0 ? (rows[y - 1] ?? []) : [];
    filtered.push(filter);
    row.forEach((value, i) => {
      const a = i >= bpp ? (row[i - bpp] ?? 0) : 0;
      const b = prev[i] ?? 0;
      const c = i >= bpp ? (prev[i - bpp] ?? 0) : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter] ?? 0;
      filtered.push((value - predictor) & 0xff);
    });
  });
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  ihdr[9] = type;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    ...(options.extra ?? []),
    chunk("IDAT", await deflateAsync(Buffer.from(filtered))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const pixels = (image: RgbaImage | null) => (image ? Array.from(image.data) : null);

describe("decodePng", () => {
  const rgbRows = [
    [10, 20, 30, 200, 100, 50, 0, 255, 7],
    [11, 21, 31, 190, 110, 60, 5, 250, 9],
    [12, 22, 32, 180, 120, 70, 9, 240, 11],
  ];
  const rgba = rgbRows.flatMap((row) => [0, 3, 6].flatMap((i) => [row[i], row[i + 1], row[i + 2], 255]));

  it.each([0, 1, 2, 3, 4])("undoes filter %i", async (filter) => {
    const bytes = await png({ width: 3, height: 3, depth: 8, type: 2, rows: rgbRows, filter });
    expect(pixels(await decodePng(bytes))).toEqual(rgba);
  });

  it("reads 2-bit palettes with transparency, 16-bit grey and 4-bit grey", async () => {
    const plte = chunk("PLTE", Buffer.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9]));
    const trns = chunk("tRNS", Buffer.from([255, 128]));
    // Pixels 0,1,2,3 then 3,2,1,0 packed four to a byte.
    const palette = await png({
      width: 4,
      height: 2,
      depth: 2,
      type: 3,
      rows: [[0b00011011], [0b11100100]],
      filter: 0,
      extra: [plte, trns],
    });
    expect(pixels(await decodePng(palette))).toEqual([
      ...[255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 255, 9, 9, 9, 255],
      ...[9, 9, 9, 255, 0, 0, 255, 255, 0, 255, 0, 128, 255, 0, 0, 255],
    ]);
    const grey16 = await png({
      width: 2,
      height: 1,
      depth: 16,
      type: 0,
      rows: [[0x12, 0x34, 0xff, 0x00]],
      filter: 1,
    });
    expect(pixels(await decodePng(grey16))).toEqual([0x12, 0x12, 0x12, 255, 0xff, 0xff, 0xff, 255]);
    const grey4 = await png({ width: 2, height: 1, depth: 4, type: 0, rows: [[0xf0]], filter: 0 });
    expect(pixels(await decodePng(grey4))).toEqual([255, 255, 255, 255, 0, 0, 0, 255]);
  });

  it("gives up (null) on interlaced or broken files", async () => {
    const good = await png({ width: 3, height: 3, depth: 8, type: 2, rows: rgbRows, filter: 0 });
    const interlaced = Buffer.from(good);
    interlaced[8 + 8 + 12] = 1; // IHDR interlace byte (the CRC is not checked)
    expect(await decodePng(interlaced)).toBeNull();
    expect(await decodePng(good.subarray(0, 40))).toBeNull();
    expect(await decodePng(Buffer.from("not a png at all, not at all, not at all"))).toBeNull();
  });
});

describe("encodePng and downscale", () => {
  it("round-trips RGBA, and writes RGB when everything is opaque", async () => {
    const data = new Uint8Array([1, 2, 3, 4, 250, 251, 252, 253, 9, 8, 7, 0, 0, 0, 0, 255]);
    const image = { width: 2, height: 2, data };
    expect(pixels(await decodePng(await encodePng(image)))).toEqual(Array.from(data));
    const opaque = { width: 1, height: 1, data: new Uint8Array([5, 6, 7, 255]) };
    const bytes = await encodePng(opaque);
    expect(bytes[25]).toBe(2); // colour type RGB
    expect(pixels(await decodePng(bytes))).toEqual([5, 6, 7, 255]);
  });

  it("averages the covered pixels, weighting colour by alpha", () => {
    const data = new Uint8Array([100, 0, 0, 255, 200, 0, 0, 255, 0, 0, 0, 0, 0, 40, 0, 255]);
    expect(Array.from(downscale({ width: 2, height: 2, data }, 1, 1).data)).toEqual([100, 13, 0, 191]);
  });
});
