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

/**
 * Native or lazily optional packages stay outside the bundle. OpenTelemetry is bundled into the
 * chunks src/telemetry/ loads only when `[otel]` is configured: one minified file loads in a
 * fraction of the time its ~200 package files take (measured: 85 ms as packages). Its gRPC
 * exporters stay outside, loaded only when an `otlp-grpc` exporter is configured.
 */
const external = ["@lydell/node-pty", "@vscode/ripgrep", /^@grpc\//, /otlp-grpc/];
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
const bundle = (input, format, inputOptions = {}) =>
  build({
    input,
    ...inputOptions,
    platform: "node",
    external,
    plugins: bundlePlugins,
    logLevel: "warn",
    // A lazy import() of a module that shares a chunk with a static importer still defers that
    // chunk (open-store.ts loading the JSONL store defers a thread's core); rolldown only means
    // the module gets no chunk of its own, which startPathGroups wants.
    checks: { ineffectiveDynamicImport: false },
    output: { dir: "dist", ...output, ...format },
  });
const cli = await bundle(
  { cli: "src/frontends/cli/main.ts" },
  {
    format: "cjs",
    entryFileNames: "[name].cjs",
    chunkFileNames: "chunks/[name]-[hash].cjs",
    ...startPathGroups(),
  },
  // Chunks may export more than their modules did (startPathGroups' includeDependenciesRecursively).
  { preserveEntrySignatures: "allow-extension" },
);
const library = await bundle(
  { index: "src/index.ts" },
  { format: "esm", chunkFileNames: "chunks/[name]-[hash].js" },
);
assertAcyclicChunks(cli.output.filter((chunk) => chunk.type === "chunk"));
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

/**
 * Fewer, larger chunks where a start-up loads many modules together (issue 26: a one-turn exec
 * loaded 33 files; each file costs V8 more than the same code inside a bigger one):
 * - `config`: what loading config.toml needs (the static imports of config/load.ts), which every
 *   command but --version loads first;
 * - `core`: what a thread needs (the static imports of session/thread-manager.ts), less what any
 *   command other than exec loads before its first thread, so that a server's handshake loads no
 *   more than before.
 * Groups take only the modules named here (includeDependenciesRecursively: false, so a server's
 * handshake code is not pulled into them); the chunk graph must then stay acyclic, which
 * assertAcyclicChunks checks.
 */
function startPathGroups() {
  const source = (path) => fileURLToPath(new URL(`../src/${path}`, import.meta.url));
  /** The modules `starts` import statically, transitively, not entering `stop`. */
  const staticImports = (context, starts, stop = new Set()) => {
    const seen = new Set();
    const pending = [...starts];
    while (pending.length > 0) {
      const id = pending.pop();
      if (seen.has(id) || stop.has(id)) continue;
      seen.add(id);
      pending.push(...(context.getModuleInfo(id)?.importedIds ?? []));
    }
    return seen;
  };
  let groupOf;
  const group = (id, context) => {
    if (!groupOf) {
      const main = source("frontends/cli/main.ts");
      const commands = context.getModuleInfo(main)?.dynamicallyImportedIds ?? [];
      const beforeAThread = staticImports(context, [
        main,
        ...commands.filter((id) => id !== source("frontends/cli/load-exec.ts")),
      ]);
      const core = staticImports(context, [source("session/thread-manager.ts")], beforeAThread);
      const config = staticImports(context, [source("config/load.ts")], staticImports(context, [main]));
      groupOf = new Map([...[...core].map((id) => [id, "core"]), ...[...config].map((id) => [id, "config"])]);
    }
    return groupOf.get(id) ?? null;
  };
  return {
    codeSplitting: {
      includeDependenciesRecursively: false,
      groups: [{ name: group, debugName: "start-path" }],
    },
  };
}

/** Fails the build when one CommonJS chunk requires another that (transitively) requires it. */
function assertAcyclicChunks(chunks) {
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const state = new Map();
  const visit = (name, path) => {
    if (state.get(name) === "done") return;
    if (state.get(name) === "open") throw new Error(`circular chunks: ${[...path, name].join(" -> ")}`);
    state.set(name, "open");
    for (const imported of byName.get(name)?.imports ?? []) visit(imported, [...path, name]);
    state.set(name, "done");
  };
  for (const name of byName.keys()) visit(name, []);
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
