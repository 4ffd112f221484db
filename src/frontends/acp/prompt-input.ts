/**
 * An ACP prompt (content blocks) as the core's user input: text as written, images as data URLs,
 * a resource link as a mention of the file (a path for file: URIs) and an embedded resource as
 * the text the editor sent, fenced and labelled with its URI, so the model reads the editor's
 * version of a file (unsaved changes included) without a tool call.
 */
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { UserInput } from "../../session/thread.js";

export function userInputOf(blocks: readonly ContentBlock[]): UserInput {
  const parts: string[] = [];
  const images: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
        images.push(`data:${block.mimeType};base64,${block.data}`);
        break;
      case "resource_link":
        parts.push(`@${pathOf(block.uri)}`);
        break;
      case "resource": {
        const { resource } = block;
        if ("text" in resource)
          parts.push(`<context ref="${pathOf(resource.uri)}">\n${resource.text}\n</context>`);
        else parts.push(`@${pathOf(resource.uri)}`);
        break;
      }
      case "audio":
        break;
    }
  }
  return images.length > 0 ? { text: parts.join("\n"), images } : { text: parts.join("\n") };
}

/** The path of a file: URI; any other URI as it is. */
function pathOf(uri: string): string {
  if (!uri.startsWith("file:")) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}
