/**
 * Recognising images by their bytes (PNG, JPEG, GIF, WebP: what the model APIs accept) and
 * reading their pixel size from the headers, without decoding. Plus a small extension → MIME
 * table for naming what a non-image file is.
 */
import { extname } from "node:path";

export type ImageFormat = "png" | "jpeg" | "gif" | "webp";

export interface ImageInfo {
  format: ImageFormat;
  mime: string;
  /** Pixel size from the header; null when the header is cut short or unusual. */
  width: number | null;
  height: number | null;
}

const MIME: Record<ImageFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

/** The format of `bytes` from its magic number, with the pixel size where the header has it. */
export function sniffImage(bytes: Buffer): ImageInfo | null {
  const format = formatOf(bytes);
  if (!format) return null;
  const size = sizeOf(format, bytes);
  return { format, mime: MIME[format], width: size?.[0] ?? null, height: size?.[1] ?? null };
}

function formatOf(bytes: Buffer): ImageFormat | null {
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.readUInt32BE(4) === 0x0d0a1a0a) {
    return "png";
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (bytes.length >= 6) {
    const head = bytes.toString("latin1", 0, 6);
    if (head === "GIF87a" || head === "GIF89a") return "gif";
  }
  if (
    bytes.length >= 12 &&
    bytes.toString("latin1", 0, 4) === "RIFF" &&
    bytes.toString("latin1", 8, 12) === "WEBP"
  ) {
    return "webp";
  }
  return null;
}

function sizeOf(format: ImageFormat, bytes: Buffer): [number, number] | null {
  switch (format) {
    case "png":
      // IHDR is always first: width and height at 16 and 20.
      return bytes.length >= 24 ? [bytes.readUInt32BE(16), bytes.readUInt32BE(20)] : null;
    case "gif":
      return bytes.length >= 10 ? [bytes.readUInt16LE(6), bytes.readUInt16LE(8)] : null;
    case "webp":
      return webpSize(bytes);
    case "jpeg":
      return jpegSize(bytes);
  }
}

function webpSize(bytes: Buffer): [number, number] | null {
  if (bytes.length < 30) return null;
  const chunk = bytes.toString("latin1", 12, 16);
  if (chunk === "VP8X") return [1 + bytes.readUIntLE(24, 3), 1 + bytes.readUIntLE(27, 3)];
  if (chunk === "VP8L") {
    const bits = bytes.readUInt32LE(21);
    return [1 + (bits & 0x3fff), 1 + ((bits >>> 14) & 0x3fff)];
  }
  if (chunk === "VP8 ") return [bytes.readUInt16LE(26) & 0x3fff, bytes.readUInt16LE(28) & 0x3fff];
  return null;
}

/** Walk the JPEG markers to the first start-of-frame (SOF0–SOF15 but DHT, JPG, DAC). */
function jpegSize(bytes: Buffer): [number, number] | null {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1] ?? 0;
    // Fill bytes and standalone markers carry no length.
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    const length = bytes.readUInt16BE(offset + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return [bytes.readUInt16BE(offset + 7), bytes.readUInt16BE(offset + 5)];
    }
    offset += 2 + length;
  }
  return null;
}

const MIME_BY_EXTENSION: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
  ".tif": "image/tiff",
  ".tiff": "image/tiff",
  ".ico": "image/x-icon",
  ".svg": "image/svg+xml",
  ".avif": "image/avif",
  ".heic": "image/heic",
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".html": "text/html",
  ".htm": "text/html",
  ".css": "text/css",
  ".csv": "text/csv",
  ".xml": "text/xml",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".json": "application/json",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".wasm": "application/wasm",
  ".mp4": "video/mp4",
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
};

/** The MIME type a file's extension suggests (`application/octet-stream` when unknown). */
export function mimeFromExtension(path: string): string {
  return MIME_BY_EXTENSION[extname(path).toLowerCase()] ?? "application/octet-stream";
}
