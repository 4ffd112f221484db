/** Shared by the benchmarks (bench/support/ is not itself run by `npm run bench`). */
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * The Codex 0.89 binary for side-by-side numbers: $CODEX_BIN, else node_modules/@openai/codex
 * (after `npm install --no-save @openai/codex@0.89.0`), else a known scratch install; null if none.
 */
export function findCodex(): string | null {
  const candidates = [
    process.env.CODEX_BIN,
    join(process.cwd(), "node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/codex/codex"),
    "/tmp/codexbench/node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/codex/codex",
  ];
  return candidates.find((path): path is string => Boolean(path && existsSync(path))) ?? null;
}
