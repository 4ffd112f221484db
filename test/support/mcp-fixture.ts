/**
 * The stdio MCP fixture (mcp-fixture-server.ts) as a runnable script: bundled once per test
 * process with esbuild into node_modules/.cache (so the SDK import resolves from the project),
 * then started with `node SCRIPT` like any MCP server. `fixtureToml` writes its config entry.
 *
 * The script itself is a small loader that acts before the SDK loads (~0.4 s of CPU): it notes
 * its pid (`FIXTURE_PIDFILE`), since a test may have it killed at any moment after the spawn,
 * and plays the start-up misbehaviours (`FIXTURE_MODE`), so a start-up timeout test does not
 * depend on how fast a fixture starts.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
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

/** The entry `node` runs; it imports the bundled server only to serve. */
const LOADER = `import { appendFileSync } from "node:fs";
if (process.env.FIXTURE_PIDFILE) appendFileSync(process.env.FIXTURE_PIDFILE, \`\${process.pid}\\n\`);
const mode = process.env.FIXTURE_MODE ?? "normal";
if (mode === "crash") {
  process.stderr.write("fixture: crashing at startup\\n");
  process.exit(3);
}
if (mode === "hang") {
  // Read nothing, answer nothing, stay alive until killed.
  setInterval(() => {}, 60_000);
} else {
  const { runStdioFixture } = await import("./server-bundle.mjs");
  await runStdioFixture();
}
`;

async function buildFixture(): Promise<string> {
  await mkdir(OUT_DIR, { recursive: true });
  const final = join(OUT_DIR, "server.mjs");
  // Test workers build concurrently: each writes its own files, then renames (atomic), the
  // bundle first so the loader never finds it missing.
  const stamp = `${process.pid}-${Date.now()}`;
  const temp = join(OUT_DIR, `server-bundle-${stamp}.mjs`);
  await build({
    stdin: {
      contents: `export { runStdioFixture } from ${JSON.stringify(SOURCE)};\n`,
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
  await rename(temp, join(OUT_DIR, "server-bundle.mjs"));
  const loader = join(OUT_DIR, `server-${stamp}.mjs`);
  await writeFile(loader, LOADER);
  await rename(loader, final);
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
