/**
 * The stdio MCP fixture (mcp-fixture-server.ts) as a runnable script: bundled once per test
 * process with esbuild into node_modules/.cache (so the SDK import resolves from the project),
 * then started with `node SCRIPT` like any MCP server. `fixtureToml` writes its config entry.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** The project root: found by walking up, as this file may run bundled from node_modules/.cache. */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (dir !== dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && /"name":\s*"tscodex"/.test(readFileSync(manifest, "utf8"))) return dir;
    dir = dirname(dir);
  }
  return resolve(".");
}

const ROOT = projectRoot();
const SOURCE = join(ROOT, "test/support/mcp-fixture-server.ts");
const OUT_DIR = join(ROOT, "node_modules/.cache/tscodex-mcp-fixture");

let built: Promise<string> | undefined;

/** Path of the runnable fixture script (`node PATH` starts it on stdio). */
export function fixtureScript(): Promise<string> {
  built ??= buildFixture();
  return built;
}

async function buildFixture(): Promise<string> {
  await mkdir(OUT_DIR, { recursive: true });
  const final = join(OUT_DIR, "server.mjs");
  // Test workers build concurrently: each writes its own file, then renames (atomic).
  const temp = join(OUT_DIR, `server-${process.pid}-${Date.now()}.mjs`);
  await build({
    stdin: {
      contents: `import { runStdioFixture } from ${JSON.stringify(SOURCE)};\nawait runStdioFixture();\n`,
      resolveDir: ROOT,
      loader: "ts",
    },
    outfile: temp,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
  await rename(temp, final);
  return final;
}

export interface FixtureEntry {
  name: string;
  /** FIXTURE_MODE: crash | hang (default: a working server). */
  mode?: "crash" | "hang";
  /** Environment of the server (e.g. FIXTURE_PIDFILE). */
  env?: Record<string, string>;
  /** Extra `key = value` TOML lines for the entry (e.g. `tool_timeout_sec = 1`). */
  extra?: string[];
}

/** `[mcp_servers.NAME]` running the stdio fixture. */
export async function fixtureToml(entry: FixtureEntry): Promise<string> {
  const script = await fixtureScript();
  return [
    `[mcp_servers.${entry.name}]`,
    `command = ${JSON.stringify(process.execPath)}`,
    `args = [${JSON.stringify(script)}]`,
    `env = ${envToml({ ...(entry.mode ? { FIXTURE_MODE: entry.mode } : {}), ...(entry.env ?? {}) })}`,
    ...(entry.extra ?? []),
    "",
  ].join("\n");
}

function envToml(env: Record<string, string>): string {
  const pairs = Object.entries(env).map(([key, value]) => `${key} = ${JSON.stringify(value)}`);
  return `{ ${pairs.join(", ")} }`;
}
