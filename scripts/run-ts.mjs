// Runs a TypeScript entry (bench/, scripts) by bundling it with esbuild to a temp file first:
// no tsx or ts-node needed, and the bundle runs at full speed.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error("usage: node scripts/run-ts.mjs FILE.ts [args...]");
  process.exit(2);
}
// Inside node_modules so the bundle's external imports resolve from the project.
const cache = resolve("node_modules/.cache");
await mkdir(cache, { recursive: true });
const dir = await mkdtemp(join(cache, "tscodex-run-"));
const outfile = join(dir, "main.mjs");
await build({
  entryPoints: [resolve(entry)],
  outfile,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  logLevel: "warning",
  absWorkingDir: process.cwd(),
});
process.argv = [process.argv[0], outfile, ...args];
try {
  await import(pathToFileURL(outfile).href);
} finally {
  await rm(dir, { recursive: true, force: true });
}
