/**
 * The built-in prompts live in prompts/ (our own words): base-instructions.md, compact.md.
 * Each is read once per process, asynchronously; the module path differs between the bundle
 * (dist/) and sources (src/prompt/), so both locations are tried.
 */
import { readFile } from "node:fs/promises";

const cached = new Map<string, Promise<string>>();

/** The text of `prompts/<file>`; `what` names it in the error when it is missing. */
export function loadBuiltinPrompt(file: string, what: string): Promise<string> {
  let text = cached.get(file);
  if (!text) {
    text = readFirst(
      [new URL(`../prompts/${file}`, import.meta.url), new URL(`../../prompts/${file}`, import.meta.url)],
      what,
    );
    cached.set(file, text);
  }
  return text;
}

export function loadBaseInstructions(): Promise<string> {
  return loadBuiltinPrompt("base-instructions.md", "base instructions");
}

async function readFirst(candidates: URL[], what: string): Promise<string> {
  for (const url of candidates) {
    try {
      return await readFile(url, "utf8");
    } catch {
      // try the next location
    }
  }
  throw new Error(`${what} not found (looked at ${candidates.map((u) => u.pathname).join(", ")})`);
}
