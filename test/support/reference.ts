/**
 * Facts captured from Codex 0.89, as the tests read them: the copies in
 * test/fixtures/reference/ (listed in its MANIFEST, refreshed from the team reference by
 * `node scripts/sync-reference.mjs`), so every check runs from the repository alone.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../fixtures/reference/", import.meta.url));

/** Absolute path of a capture, given its path relative to the reference root. */
export function referencePath(rel: string): string {
  const path = join(ROOT, rel);
  const inside = relative(ROOT, path);
  if (inside.startsWith("..") || isAbsolute(inside)) throw new Error(`not a reference path: ${rel}`);
  return path;
}

/** A capture's text. */
export function readReference(rel: string): string {
  return readFileSync(referencePath(rel), "utf8");
}

/** A JSON capture, parsed (the type is the caller's reading of the file). */
export function readReferenceJson<T>(rel: string): T {
  return JSON.parse(readReference(rel)) as T;
}
