/**
 * `view_image`: the model asks to see a local image. The call answers `attached local image
 * path` and the image follows as a user message (`input_image` data URL) right after the tool
 * outputs, so the next request carries it (reference section 3 and
 * request-examples/089-history-with-image-request.json).
 *
 * The file is recognised by its bytes (PNG, JPEG, GIF, WebP), not its name. What cannot be
 * attached still answers `attached local image path`, with a user text saying why, as Codex
 * does. Large PNGs are scaled down the way the model API itself would (fit 2048×2048, then
 * shortest side 768: nothing the model would have seen is lost, and every later request is
 * smaller). Other formats are sent as they are, up to MAX_IMAGE_BYTES: scaling them needs an
 * image codec we do not ship; the API scales them down itself.
 */
import { open, stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { z } from "zod";
import { describeIoError } from "../../apply-patch/errors.js";
import type { InputContent } from "../../protocol/items.js";
import { defineFunctionTool, withSerde } from "../define-tool.js";
import { type ImageInfo, mimeFromExtension, sniffImage } from "../files/image.js";
import { decodePng, downscale, encodePng } from "../files/png.js";
import { type ToolDefinition, ToolError } from "../types.js";

/** Largest image attached: the OpenAI API refuses images over 20 MB. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** Largest file read: a bigger PNG may still scale down under MAX_IMAGE_BYTES. */
const MAX_READ_BYTES = 64 * 1024 * 1024;
/** Largest PNG decoded for scaling (4 bytes a pixel in memory). */
const MAX_DECODE_PIXELS = 40_000_000;
const SNIFF_BYTES = 64 * 1024;

const parameters = withSerde(
  z.object({
    path: z
      .string()
      .describe("Path of a PNG, JPEG, GIF or WebP file; relative paths start at the session's cwd."),
  }),
  { rust: "ViewImageArgs" },
);

const DESCRIPTION =
  "Look at an image file from the workspace (a screenshot, diagram or rendered output). " +
  "The image is shown to you right after this call.";

/** The view_image tool. */
export function viewImageTool(): ToolDefinition {
  return defineFunctionTool({
    name: "view_image",
    description: DESCRIPTION,
    parameters,
    supportsParallel: true,
    handle: async (args, inv) => {
      const path = resolveLikeCodex(inv.turn.cwd, args.path);
      let info: Awaited<ReturnType<typeof stat>>;
      try {
        info = await stat(path);
      } catch (error) {
        throw ToolError.respond(`unable to locate image at \`${path}\`: ${describeIoError(error)}`, {
          cause: error,
        });
      }
      if (!info.isFile()) throw ToolError.respond(`image path \`${path}\` is not a file`);
      return { content: "attached local image path", followUp: [await imageContent(path)] };
    },
  });
}

/**
 * `cwd/path` without normalising (`.` stays `.`): the paths in messages are the ones Codex
 * shows, e.g. ``image path `/work/.` is not a file``.
 */
export function resolveLikeCodex(cwd: string, path: string): string {
  if (isAbsolute(path)) return path;
  return cwd.endsWith("/") ? `${cwd}${path}` : `${cwd}/${path}`;
}

/** The image as an `input_image` data URL, or an `input_text` saying why it cannot be shown. */
export async function imageContent(path: string): Promise<InputContent> {
  const unreadable = (reason: string): InputContent => ({
    type: "input_text",
    text: `Codex could not read the local image at \`${path}\`: ${reason}`,
  });
  let bytes: Buffer;
  try {
    bytes = await readHead(path, MAX_READ_BYTES + 1);
  } catch (error) {
    return unreadable(describeIoError(error));
  }
  const image = sniffImage(bytes.subarray(0, SNIFF_BYTES));
  if (!image) {
    const mime = mimeFromExtension(path);
    if (!mime.startsWith("image/")) return unreadable(`unsupported MIME type \`${mime}\``);
    if (["image/png", "image/jpeg", "image/gif", "image/webp"].includes(mime)) {
      return {
        type: "input_text",
        text: `Image located at \`${path}\` is invalid: its contents are not ${mime} data`,
      };
    }
    return {
      type: "input_text",
      text: `Codex cannot attach image at \`${path}\`: unsupported image \`${mime}\`.`,
    };
  }
  let mime = image.mime;
  if (bytes.length <= MAX_READ_BYTES) {
    const scaled = await scaleDown(bytes, image);
    // Fewer pixels but more bytes happens (a tight palette PNG re-encoded as RGB): bytes are
    // what every later request pays for, and the API scales the original down the same way.
    if (scaled && scaled.length < bytes.length) {
      bytes = scaled;
      mime = "image/png";
    }
  }
  if (bytes.length > MAX_IMAGE_BYTES) {
    const size =
      image.width !== null && image.height !== null
        ? ` (${image.width}x${image.height} ${image.format})`
        : "";
    return unreadable(
      `the image${size} is larger than ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB; make a smaller copy (scaled down or compressed) and view that`,
    );
  }
  return { type: "input_image", image_url: `data:${mime};base64,${bytes.toString("base64")}` };
}

/**
 * The size the model API scales an image to for high detail: within 2048×2048, then the
 * shortest side at most 768. Null when the image is already within it.
 */
export function modelImageSize(width: number, height: number): [number, number] | null {
  let scale = Math.min(1, 2048 / Math.max(width, height));
  if (Math.min(width, height) * scale > 768) scale = 768 / Math.min(width, height);
  if (scale >= 1) return null;
  return [Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale))];
}

/** A PNG larger than the model sees, scaled down; null to send the bytes as they are. */
async function scaleDown(bytes: Buffer, image: ImageInfo): Promise<Buffer | null> {
  if (image.format !== "png" || image.width === null || image.height === null) return null;
  const target = modelImageSize(image.width, image.height);
  if (!target || image.width * image.height > MAX_DECODE_PIXELS) return null;
  const decoded = await decodePng(bytes);
  if (!decoded) return null;
  return encodePng(downscale(decoded, target[0], target[1]));
}

/** Up to `max` bytes from the start of the file (all of it when smaller). */
async function readHead(path: string, max: number): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const size = (await handle.stat()).size;
    const buffer = Buffer.allocUnsafe(Math.min(size, max));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}
