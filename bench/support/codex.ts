/** Shared by the benchmarks (bench/support/ is not itself run by `npm run bench`). */
import { existsSync } from "node:fs";
import { join } from "node:path";

/** Where findCodex looks, in order ($CODEX_BIN first when set). */
export function codexSearchPaths(): string[] {
  return [
    process.env.CODEX_BIN,
    join(process.cwd(), "node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/codex/codex"),
    "/tmp/codexbench/node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/codex/codex",
  ].filter((path): path is string => Boolean(path));
}

/**
 * The Codex 0.89 binary for side-by-side numbers: $CODEX_BIN, else node_modules/@openai/codex
 * (after `npm install --no-save @openai/codex@0.89.0`), else a known scratch install; null if none.
 */
export function findCodex(): string | null {
  return codexSearchPaths().find((path) => existsSync(path)) ?? null;
}

/** The line a bench prints when Codex is absent: what to do, and where it looked. */
export function codexNotFound(): string {
  const looked = [...(process.env.CODEX_BIN ? [] : ["$CODEX_BIN (unset)"]), ...codexSearchPaths()];
  return `codex 0.89 not found (looked at: ${looked.join(", ")}): set CODEX_BIN or \`npm install --no-save @openai/codex@0.89.0\` for side-by-side numbers`;
}
