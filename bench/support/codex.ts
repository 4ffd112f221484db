/** Shared by the benchmarks (bench/support/ is not itself run by `npm run bench`). */
import { existsSync } from "node:fs";
import { join } from "node:path";

/** Where the Codex 0.89 binary is looked for, in order. */
function codexCandidates(): { path: string | undefined; label: string }[] {
  return [
    { path: process.env.CODEX_BIN, label: "$CODEX_BIN" },
    {
      path: join(process.cwd(), "node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/codex/codex"),
      label: "node_modules/@openai/codex",
    },
    {
      path: "/tmp/codexbench/node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/codex/codex",
      label: "/tmp/codexbench",
    },
  ];
}

/**
 * The Codex 0.89 binary for side-by-side numbers: $CODEX_BIN, else node_modules/@openai/codex
 * (after `npm install --no-save @openai/codex@0.89.0`), else a known scratch install; null if none.
 */
export function findCodex(): string | null {
  const found = codexCandidates().find(({ path }) => Boolean(path && existsSync(path)));
  return found?.path ?? null;
}

/** The line a bench prints when Codex is absent: where it looked, and how to provide it. */
export function codexNotFound(): string {
  const looked = codexCandidates()
    .map(({ path, label }) => (path ? `${label} (${path})` : `${label} (unset)`))
    .join(", ");
  return (
    `codex-0.89: not found, Codex column skipped; looked at ${looked}. ` +
    "Set CODEX_BIN to the binary (e.g. from `npm pack @openai/codex@0.89.0`: package/vendor/x86_64-unknown-linux-musl/codex/codex)"
  );
}
