/**
 * The built-in base instructions live in prompts/base-instructions.md (our own words).
 * Read once per process, asynchronously; the module path differs between the bundle
 * (dist/) and sources (src/prompt/), so both locations are tried.
 */
import { readFile } from "node:fs/promises";

let cached: Promise<string> | null = null;

export function loadBaseInstructions(): Promise<string> {
  cached ??= readFirst([
    new URL("../prompts/base-instructions.md", import.meta.url),
    new URL("../../prompts/base-instructions.md", import.meta.url),
  ]);
  return cached;
}

async function readFirst(candidates: URL[]): Promise<string> {
  for (const url of candidates) {
    try {
      return await readFile(url, "utf8");
    } catch {
      // try the next location
    }
  }
  throw new Error(`base instructions not found (looked at ${candidates.map((u) => u.pathname).join(", ")})`);
}
