/** Shared by the benchmarks (bench/support/ is not itself run by `npm run bench`). */
import { existsSync } from "node:fs";
import { join } from "node:path";

/** The Codex releases the benches compare with: 0.89 (exec, mcp-server) and 0.169 (app-server). */
export type CodexVersion = "0.89" | "0.169";

/** Where each Codex binary is looked for, in order. */
function codexCandidates(version: CodexVersion): { path: string | undefined; label: string }[] {
  if (version === "0.169") {
    return [
      { path: process.env.CODEX_169_BIN, label: "$CODEX_169_BIN" },
      {
        path: "/tmp/codexbench-169/package/vendor/x86_64-unknown-linux-musl/bin/codex",
        label: "/tmp/codexbench-169",
      },
    ];
  }
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
 * The Codex binary of `version` for side-by-side numbers: 0.89 from $CODEX_BIN, else
 * node_modules/@openai/codex (after `npm install --no-save @openai/codex@0.89.0`), else a known
 * scratch install; 0.169 from $CODEX_169_BIN or a known scratch dir; null if none.
 */
export function findCodex(version: CodexVersion = "0.89"): string | null {
  const found = codexCandidates(version).find(({ path }) => Boolean(path && existsSync(path)));
  return found?.path ?? null;
}

const HOW_TO_GET: Record<CodexVersion, string> = {
  "0.89":
    "Set CODEX_BIN to the binary (e.g. from `npm pack @openai/codex@0.89.0`: package/vendor/x86_64-unknown-linux-musl/codex/codex)",
  "0.169":
    "Set CODEX_169_BIN to the binary (from `npm pack @openai/codex@0.169.0-linux-x64`, the platform package: package/vendor/x86_64-unknown-linux-musl/bin/codex)",
};

/** The line a bench prints when Codex is absent: where it looked, and how to provide it. */
export function codexNotFound(version: CodexVersion = "0.89"): string {
  const looked = codexCandidates(version)
    .map(({ path, label }) => (path ? `${label} (${path})` : `${label} (unset)`))
    .join(", ");
  return `codex-${version}: not found, Codex column skipped; looked at ${looked}. ${HOW_TO_GET[version]}`;
}
