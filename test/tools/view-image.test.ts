/**
 * view_image: the recorded Codex 0.89 calls (output, and the user message that follows) on a
 * rebuilt workspace, format sniffing for the four formats, and the non-image cases.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  imageContent,
  MAX_IMAGE_BYTES,
  modelImageSize,
  viewImageTool,
} from "../../src/tools/builtin/view-image.js";
import { sniffImage } from "../../src/tools/files/image.js";
import { encodePng, type RgbaImage } from "../../src/tools/files/png.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { callTool, recordedCalls } from "./file-tools-support.js";

/** The 4×3 PNG of the reference's misc-tools run. */
const TINY_PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEElEQVR4nGP4z8AARww4OQD1MQv1NXv7ggAAAABJRU5ErkJggg==";
const ORACLE_ROOT = "/tmp/oracle-work/misc-tools";

let dir: TempDir;
const tool = viewImageTool();

beforeAll(async () => {
  dir = await tmpdir("tscodex-view-image-");
  await writeFile(join(dir.path, "img.png"), Buffer.from(TINY_PNG_BASE64, "base64"));
  await writeFile(join(dir.path, "notimage.txt"), "just text\n");
});
afterAll(() => dir.cleanup());

describe("view_image", () => {
  it("replays every recorded Codex call, follow-up message included", async () => {
    const calls = await recordedCalls("view_image");
    expect(calls.length).toBeGreaterThanOrEqual(5);
    const relocate = (text: string) => text.split(ORACLE_ROOT).join(dir.path);
    for (const call of calls) {
      const { text, output } = await callTool(tool, relocate(call.arguments), dir.path);
      expect(text, call.arguments).toBe(relocate(call.output));
      const expected = call.followed_by_user_message;
      if (!expected) {
        expect(output?.followUp).toBeUndefined();
        continue;
      }
      expect(output?.followUp).toHaveLength(1);
      const item = output?.followUp?.[0];
      if (expected.type === "input_image") {
        // The capture shortens data URLs with "…"; the full one is in the request example.
        expect(item).toEqual({ type: "input_image", image_url: `data:image/png;base64,${TINY_PNG_BASE64}` });
        expect(
          item?.type === "input_image" &&
            item.image_url.startsWith((expected.image_url ?? "").replace("…", "")),
        ).toBe(true);
      } else {
        expect(item).toEqual({ type: "input_text", text: relocate(expected.text ?? "") });
      }
    }
  });

  it("has the reference's parameters", () => {
    expect(tool.spec).toMatchObject({
      name: "view_image",
      parameters: {
        required: ["path"],
        properties: { path: { type: "string" } },
        additionalProperties: false,
      },
    });
  });

  it("recognises images by content whatever the name, with their size", async () => {
    const gif = Buffer.concat([Buffer.from("GIF89a"), Buffer.from([5, 0, 7, 0]), Buffer.alloc(8)]);
    const webp = Buffer.alloc(30);
    webp.write("RIFF", 0, "latin1");
    webp.write("WEBPVP8X", 8, "latin1");
    webp.writeUIntLE(99, 24, 3);
    webp.writeUIntLE(49, 27, 3);
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x20, 0x00, 0x40,
      0x01, 0x01, 0x11, 0x00,
    ]);
    expect(sniffImage(Buffer.from(TINY_PNG_BASE64, "base64"))).toEqual({
      format: "png",
      mime: "image/png",
      width: 4,
      height: 3,
    });
    expect(sniffImage(gif)).toMatchObject({ mime: "image/gif", width: 5, height: 7 });
    expect(sniffImage(webp)).toMatchObject({ mime: "image/webp", width: 100, height: 50 });
    expect(sniffImage(jpeg)).toMatchObject({ mime: "image/jpeg", width: 64, height: 32 });

    await writeFile(join(dir.path, "photo.dat"), gif);
    expect(await imageContent(join(dir.path, "photo.dat"))).toEqual({
      type: "input_image",
      image_url: `data:image/gif;base64,${gif.toString("base64")}`,
    });
  });

  it("says why a file cannot be shown", async () => {
    const at = (name: string) => join(dir.path, name);
    await writeFile(at("fake.png"), "not a png");
    await writeFile(at("pic.bmp"), "BM....");
    await writeFile(at("data.json"), "{}");
    expect(await imageContent(at("fake.png"))).toEqual({
      type: "input_text",
      text: `Image located at \`${at("fake.png")}\` is invalid: its contents are not image/png data`,
    });
    expect(await imageContent(at("pic.bmp"))).toEqual({
      type: "input_text",
      text: `Codex cannot attach image at \`${at("pic.bmp")}\`: unsupported image \`image/bmp\`.`,
    });
    expect(await imageContent(at("data.json"))).toEqual({
      type: "input_text",
      text: `Codex could not read the local image at \`${at("data.json")}\`: unsupported MIME type \`application/json\``,
    });
  });

  it("refuses images over the size cap with a hint", async () => {
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 10);
    Buffer.from(TINY_PNG_BASE64, "base64").copy(big);
    await mkdir(join(dir.path, "big"), { recursive: true });
    const path = join(dir.path, "big/huge.png");
    await writeFile(path, big);
    const content = await imageContent(path);
    expect(content.type).toBe("input_text");
    expect(content.type === "input_text" && content.text).toBe(
      `Codex could not read the local image at \`${path}\`: the image (4x3 png) is larger than 20 MiB; make a smaller copy (scaled down or compressed) and view that`,
    );
  });
});

describe("view_image scales large PNGs the way the model API would", () => {
  it("computes the API's high-detail size", () => {
    expect(modelImageSize(1024, 768)).toBeNull();
    expect(modelImageSize(1920, 1080)).toEqual([1365, 768]);
    expect(modelImageSize(1080, 1920)).toEqual([768, 1365]);
    expect(modelImageSize(4000, 1000)).toEqual([2048, 512]);
    expect(modelImageSize(500, 3000)).toEqual([341, 2048]);
  });

  it("sends a scaled-down PNG in place of a big one", async () => {
    const width = 3000;
    const height = 1200;
    const data = new Uint8Array(width * height * 4);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) data.set([x % 256, y % 256, 128, 255], (y * width + x) * 4);
    }
    const path = join(dir.path, "wide.png");
    await writeFile(path, await encodePng({ width, height, data } satisfies RgbaImage));
    const content = await imageContent(path);
    expect(content.type).toBe("input_image");
    const url = content.type === "input_image" ? content.image_url : "";
    expect(url.startsWith("data:image/png;base64,")).toBe(true);
    const sent = Buffer.from(url.slice("data:image/png;base64,".length), "base64");
    expect(sniffImage(sent)).toMatchObject({ format: "png", width: 1920, height: 768 });
  });
});
