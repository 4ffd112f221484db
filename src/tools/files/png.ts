/**
 * Just enough PNG for view_image to scale screenshots down without an image library:
 * decode (every colour type and bit depth, not interlaced) to 8-bit RGBA, box-filter
 * downscale, encode (8-bit RGB or RGBA). zlib does the compression.
 */
import { promisify } from "node:util";
import { crc32, deflate, inflate } from "node:zlib";

const inflateAsync = promisify(inflate);
const deflateAsync = promisify(deflate);

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface RgbaImage {
  width: number;
  height: number;
  /** width × height × 4 bytes, row by row. */
  data: Uint8Array;
}

/** Channels per pixel for each colour type (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Decode a PNG to RGBA; null when it is interlaced or malformed (the caller sends it as is). */
export async function decodePng(bytes: Buffer): Promise<RgbaImage | null> {
  if (bytes.length < 33 || !bytes.subarray(0, 8).equals(SIGNATURE)) return null;
  let header: { width: number; height: number; depth: number; type: number; interlace: number } | null = null;
  let palette: Buffer | null = null;
  let transparency: Buffer | null = null;
  const data: Buffer[] = [];
  for (let offset = 8; offset + 8 <= bytes.length; ) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString("latin1", offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (body.length < length) return null;
    if (type === "IHDR") {
      header = {
        width: body.readUInt32BE(0),
        height: body.readUInt32BE(4),
        depth: body[8] ?? 0,
        type: body[9] ?? 0,
        interlace: body[12] ?? 0,
      };
    } else if (type === "PLTE") palette = body;
    else if (type === "tRNS") transparency = body;
    else if (type === "IDAT") data.push(body);
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  const channels = header ? CHANNELS[header.type] : undefined;
  if (
    !header ||
    channels === undefined ||
    header.interlace !== 0 ||
    header.width === 0 ||
    header.height === 0
  ) {
    return null;
  }
  const { width, height, depth, type } = header;
  const bitsPerPixel = channels * depth;
  const stride = Math.ceil((width * bitsPerPixel) / 8);
  let raw: Buffer;
  try {
    raw = await inflateAsync(Buffer.concat(data));
  } catch {
    return null;
  }
  if (raw.length < (stride + 1) * height) return null;
  const rows = unfilter(raw, stride, height, Math.max(1, bitsPerPixel >> 3));
  if (!rows) return null;

  const out = new Uint8Array(width * height * 4);
  if (depth === 8 && (type === 2 || type === 6)) {
    // The common case (screenshots), without the per-sample decoding below.
    for (let p = 0, s = 0; p < out.length; p += 4, s += channels) {
      out[p] = rows[s] ?? 0;
      out[p + 1] = rows[s + 1] ?? 0;
      out[p + 2] = rows[s + 2] ?? 0;
      out[p + 3] = type === 6 ? (rows[s + 3] ?? 0) : 255;
    }
    return { width, height, data: out };
  }
  const maxValue = (1 << Math.min(depth, 8)) - 1;
  for (let y = 0; y < height; y++) {
    const row = rows.subarray(y * stride, (y + 1) * stride);
    for (let x = 0; x < width; x++) {
      const sample = (channel: number): number => {
        const index = x * channels + channel;
        if (depth === 16) return row[index * 2] ?? 0; // high byte
        if (depth === 8) return row[index] ?? 0;
        const bit = index * depth;
        return ((row[bit >> 3] ?? 0) >> (8 - depth - (bit & 7))) & maxValue;
      };
      const scale = (value: number) =>
        type === 3 || depth >= 8 ? value : Math.round((value * 255) / maxValue);
      const o = (y * width + x) * 4;
      if (type === 3) {
        const entry = sample(0);
        out[o] = palette?.[entry * 3] ?? 0;
        out[o + 1] = palette?.[entry * 3 + 1] ?? 0;
        out[o + 2] = palette?.[entry * 3 + 2] ?? 0;
        out[o + 3] = transparency?.[entry] ?? 255;
      } else if (type === 0 || type === 4) {
        const grey = scale(sample(0));
        out[o] = out[o + 1] = out[o + 2] = grey;
        out[o + 3] = type === 4 ? sample(1) : 255;
      } else {
        out[o] = sample(0);
        out[o + 1] = sample(1);
        out[o + 2] = sample(2);
        out[o + 3] = type === 6 ? sample(3) : 255;
      }
    }
  }
  return { width, height, data: out };
}

/** Undo the per-row filters (None, Sub, Up, Average, Paeth); null on an unknown filter. */
function unfilter(raw: Buffer, stride: number, height: number, bpp: number): Uint8Array | null {
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const dst = y * stride;
    const prev = dst - stride;
    for (let i = 0; i < stride; i++) {
      const left = i >= bpp ? (out[dst + i - bpp] ?? 0) : 0;
      const up = y > 0 ? (out[prev + i] ?? 0) : 0;
      const upLeft = y > 0 && i >= bpp ? (out[prev + i - bpp] ?? 0) : 0;
      let predictor: number;
      if (filter === 0) predictor = 0;
      else if (filter === 1) predictor = left;
      else if (filter === 2) predictor = up;
      else if (filter === 3) predictor = (left + up) >> 1;
      else if (filter === 4) predictor = paeth(left, up, upLeft);
      else return null;
      out[dst + i] = ((raw[src + i] ?? 0) + predictor) & 0xff;
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

/** Downscale by averaging the source pixels each target pixel covers (alpha-weighted colour). */
export function downscale(image: RgbaImage, width: number, height: number): RgbaImage {
  const out = new Uint8Array(width * height * 4);
  const src = image.data;
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor((y * image.height) / height);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * image.height) / height));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor((x * image.width) / width);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * image.width) / width));
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = y0; sy < y1; sy++) {
        for (let sx = x0; sx < x1; sx++) {
          const i = (sy * image.width + sx) * 4;
          const alpha = src[i + 3] ?? 0;
          r += (src[i] ?? 0) * alpha;
          g += (src[i + 1] ?? 0) * alpha;
          b += (src[i + 2] ?? 0) * alpha;
          a += alpha;
        }
      }
      const count = (y1 - y0) * (x1 - x0);
      const o = (y * width + x) * 4;
      out[o] = a === 0 ? 0 : Math.round(r / a);
      out[o + 1] = a === 0 ? 0 : Math.round(g / a);
      out[o + 2] = a === 0 ? 0 : Math.round(b / a);
      out[o + 3] = Math.round(a / count);
    }
  }
  return { width, height, data: out };
}

/** Encode as PNG: RGB when every pixel is opaque, else RGBA; Up filter on every row. */
export async function encodePng(image: RgbaImage): Promise<Buffer> {
  const { width, height, data } = image;
  let opaque = true;
  for (let i = 3; i < data.length && opaque; i += 4) opaque = data[i] === 255;
  const channels = opaque ? 3 : 4;
  const stride = width * channels;
  const raw = Buffer.alloc((stride + 1) * height);
  const row = new Uint8Array(stride);
  const prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < channels; c++) row[x * channels + c] = data[(y * width + x) * 4 + c] ?? 0;
    }
    const at = y * (stride + 1);
    raw[at] = 2; // Up: screenshots repeat rows, which compresses well
    for (let i = 0; i < stride; i++) raw[at + 1 + i] = ((row[i] ?? 0) - (prev[i] ?? 0)) & 0xff;
    prev.set(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = opaque ? 2 : 6;
  return Buffer.concat([
    SIGNATURE,
    chunk("IHDR", ihdr),
    chunk("IDAT", await deflateAsync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function chunk(type: string, body: Buffer): Buffer {
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, "latin1");
  body.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}
