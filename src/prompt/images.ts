/** Local image files → data URLs for `input_image` content (`-i/--image`). */
import { readFile } from "node:fs/promises";
import { extname } from "node:path";

const MIME_BY_EXTENSION: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

export class ImageInputError extends Error {
  override name = "ImageInputError";
}

export async function imageFileToDataUrl(path: string): Promise<string> {
  const mime = MIME_BY_EXTENSION[extname(path).toLowerCase()];
  if (!mime) throw new ImageInputError(`${path}: not a supported image (png, jpeg, gif, webp)`);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new ImageInputError(`${path}: cannot read image: ${(error as Error).message}`, { cause: error });
  }
  return `data:${mime};base64,${bytes.toString("base64")}`;
}
