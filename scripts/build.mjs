// Bundles the CLI and the library with rolldown. The CLI is CommonJS split into lazily loaded
// chunks (dist/cli.cjs, dist/chunks/*.cjs): a one-turn `tscodex exec` then starts close to Node's
// own, with no ES module loader (each ES module costs more resident memory than the same code
// as CommonJS) and only the chunks it needs parsed. The library (dist/index.js) stays ESM for
// its importers.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "rolldown";

/** Native or lazily optional packages stay outside the bundle. */
const external = ["@lydell/node-pty", "@vscode/ripgrep"];
const plugins = [withoutAjv(), onlyEnglishZodMessages()];
/**
 * V8 keeps every loaded source in the heap: without comments and whitespace it is ~30% smaller,
 * and with non-ASCII characters escaped it stays one byte a character (one `…` in a chunk makes
 * the whole chunk two-byte). Names stay, so stack traces stay readable.
 */
const output = {
  minify: { compress: true, mangle: false, codegen: { removeWhitespace: true } },
  charset: "ascii",
  sourcemap: true,
};

await rm(new URL("../dist", import.meta.url), { recursive: true, force: true });
const computed = await computeAtBuild();
const bundlePlugins = [...plugins, builtData(computed)];
const bundle = (input, format) =>
  build({
    input,
    platform: "node",
    external,
    plugins: bundlePlugins,
    logLevel: "warn",
    output: { dir: "dist", ...output, ...format },
  });
const cli = await bundle(
  { cli: "src/frontends/cli/main.ts" },
  { format: "cjs", entryFileNames: "[name].cjs", chunkFileNames: "chunks/[name]-[hash].cjs" },
);
const library = await bundle(
  { index: "src/index.ts" },
  { format: "esm", chunkFileNames: "chunks/[name]-[hash].js" },
);
// charset "ascii" leaves non-ASCII in what it may not escape (a tagged template's raw text).
for (const chunk of [...cli.output, ...library.output]) {
  if (chunk.type === "chunk" && /[^\p{ASCII}]/u.test(chunk.code)) {
    throw new Error(`dist/${chunk.fileName}: non-ASCII characters left in the bundle`);
  }
}

/**
 * Data the bundle carries instead of computing it at start-up: the stdio MCP server's tools/list
 * (BUILT_TOOL_LIST in mcp-server/tool-list.ts), config.toml's schema as JSON Schema
 * (config/validate.ts) and the built-in tools' specs (tools/registry.ts loads a tool's module on
 * its first call).
 */
function builtData(computed) {
  return {
    name: "built-data",
    async load(id) {
      if (/mcp-server[\\/]tool-list\.ts$/.test(id)) {
        const source = await readFile(id, "utf8");
        const line = /^const BUILT_TOOL_LIST: .* = undefined;$/m;
        if (!line.test(source)) throw new Error(`${id}: no BUILT_TOOL_LIST line to fill in`);
        const code = source.replace(
          line,
          () => `const BUILT_TOOL_LIST = ${JSON.stringify(computed.toolList)};`,
        );
        return { code, moduleType: "ts" };
      }
      if (/config[\\/]built-config-schema\.ts$/.test(id)) {
        return {
          code: `export const builtConfigSchema = ${JSON.stringify(computed.configSchema)};`,
          moduleType: "js",
        };
      }
      if (/tools[\\/]built-tool-specs\.ts$/.test(id)) {
        const code = `const specs = ${JSON.stringify(computed.toolSpecs)};\nexport function builtToolSpecs() { return specs; }`;
        return { code, moduleType: "js" };
      }
    },
  };
}

/** What built-data embeds, computed once from the sources (tools and zod schemas). */
async function computeAtBuild() {
  const source = [
    'import { serverTools } from "./src/frontends/mcp-server/tools.ts";',
    'import { listEntry } from "./src/frontends/mcp-server/tool-list.ts";',
    'import { configJsonSchema } from "./src/config/config-json-schema.ts";',
    'import { computeToolSpecs } from "./src/tools/built-tool-specs.ts";',
    "export const toolList = serverTools().map(listEntry);",
    "export const configSchema = configJsonSchema();",
    "export const toolSpecs = await computeToolSpecs();",
  ].join("\n");
  const entry = "\0tscodex-computed";
  const dir = await mkdtemp(join(tmpdir(), "tscodex-build-"));
  try {
    await build({
      input: entry,
      platform: "node",
      external,
      plugins: [
        ...plugins,
        {
          name: "computed-entry",
          resolveId: (id) => (id === entry ? entry : undefined),
          load: (id) => (id === entry ? { code: source, moduleType: "ts" } : undefined),
        },
      ],
      logLevel: "warn",
      output: { file: join(dir, "computed.mjs"), format: "esm", codeSplitting: false },
    });
    const { toolList, configSchema, toolSpecs } = await import(pathToFileURL(join(dir, "computed.mjs")).href);
    return { toolList, configSchema, toolSpecs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The MCP SDK imports its ajv-based validator eagerly; we always pass our own
 * (src/mcp/schema-validator.ts), so the bundle gets a stub instead of ajv's start-up cost.
 */
function withoutAjv() {
  const stub = fileURLToPath(new URL("../src/mcp/ajv-provider-stub.ts", import.meta.url));
  return {
    name: "without-ajv",
    resolveId(source, importer) {
      if (/validation\/ajv-provider\.js$/.test(source) && importer?.includes("@modelcontextprotocol"))
        return stub;
    },
  };
}

/**
 * zod's namespace re-exports every message locale: half of its bundled size (~370 KB), parsed
 * at every start of every command. tscodex only uses the English messages zod sets by default.
 */
function onlyEnglishZodMessages() {
  const locales = "\0zod-english-locales";
  return {
    name: "only-english-zod-messages",
    resolveId(source, importer) {
      if (/\/locales\/index\.js$/.test(source) && importer?.includes("zod/v4/")) return locales;
    },
    load(id) {
      if (id === locales) return 'export { default as en } from "zod/v4/locales/en.js";';
    },
  };
}
