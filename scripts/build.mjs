// Bundles the CLI and the library with esbuild. One bundle with lazily loaded chunks keeps
// `tscodex exec` start-up close to Node's own: few files to resolve, little code to parse.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const plugins = [withoutAjv(), onlyEnglishZodMessages()];
const banner = {
  // Bundled CommonJS dependencies may call require().
  js: "import { createRequire as __tscodexRequire } from 'node:module'; const require = __tscodexRequire(import.meta.url);",
};

await rm(new URL("../dist", import.meta.url), { recursive: true, force: true });
const computed = await computeAtBuild();
// Data the bundle carries instead of computing it at start-up: the stdio MCP server's tools/list
// (BUILT_TOOL_LIST in mcp-server/tool-list.ts), config.toml's schema as JSON Schema (config/validate.ts) and the
// built-in tools' specs (tools/registry.ts loads a tool's module on its first call).
const builtData = {
  name: "built-data",
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /mcp-server[\\/]tool-list\.ts$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const line = /^const BUILT_TOOL_LIST: .* = undefined;$/m;
      if (!line.test(source)) throw new Error(`${args.path}: no BUILT_TOOL_LIST line to fill in`);
      const contents = source.replace(
        line,
        () => `const BUILT_TOOL_LIST = ${JSON.stringify(computed.toolList)};`,
      );
      return { contents, loader: "ts" };
    });
    pluginBuild.onLoad({ filter: /config[\\/]built-config-schema\.ts$/ }, () => ({
      contents: `export const builtConfigSchema = ${JSON.stringify(computed.configSchema)};`,
      loader: "js",
    }));
    pluginBuild.onLoad({ filter: /tools[\\/]built-tool-specs\.ts$/ }, () => ({
      contents: `const specs = ${JSON.stringify(computed.toolSpecs)};\nexport function builtToolSpecs() { return specs; }`,
      loader: "js",
    }));
  },
};
const bundled = await build({
  entryPoints: { cli: "src/frontends/cli/main.ts", index: "src/index.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: "linked",
  // Without comments and whitespace the loaded source is ~30% smaller, and V8 keeps every
  // loaded source in the heap (twice the size when one non-ASCII character, such as a dash in
  // a comment, makes it two-byte). Names stay, so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  chunkNames: "chunks/[name]-[hash]",
  // Native or lazily optional packages stay outside the bundle.
  external: ["@lydell/node-pty", "@vscode/ripgrep"],
  logLevel: "warning",
  plugins: [...plugins, builtData],
  banner,
  write: false,
  metafile: true,
});
await Promise.all(
  bundled.outputFiles.map(async (file) => {
    await mkdir(dirname(file.path), { recursive: true });
    const output = bundled.metafile.outputs[relative(process.cwd(), file.path)];
    if (!output) throw new Error(`${file.path}: not in esbuild's metafile`);
    const imported = new Set(
      (output?.imports ?? [])
        .filter((entry) => entry.kind === "import-statement" && isBuiltin(entry.path))
        .map((entry) => entry.path),
    );
    await writeFile(
      file.path,
      file.path.endsWith(".js") ? lighterStart(file.text, imported, file.path) : file.contents,
    );
  }),
);

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
  const dir = await mkdtemp(join(tmpdir(), "tscodex-build-"));
  try {
    const outfile = join(dir, "tool-list.mjs");
    await build({
      stdin: { contents: source, resolveDir: fileURLToPath(new URL("..", import.meta.url)), loader: "ts" },
      outfile,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      external: ["@lydell/node-pty", "@vscode/ripgrep"],
      logLevel: "warning",
      plugins,
      banner,
    });
    const { toolList, configSchema, toolSpecs } = await import(pathToFileURL(outfile).href);
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
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /validation\/ajv-provider\.js$/ }, (args) =>
        args.importer.includes("@modelcontextprotocol") ? { path: stub } : undefined,
      );
    },
  };
}

/**
 * zod's namespace re-exports every message locale: half of its bundled size (~370 KB), parsed
 * at every start of every command. tscodex only uses the English messages zod sets by default.
 */
function onlyEnglishZodMessages() {
  return {
    name: "only-english-zod-messages",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
        args.importer.includes("zod/v4/") ? { path: args.path, namespace: "zod-locales" } : undefined,
      );
      pluginBuild.onLoad({ filter: /.*/, namespace: "zod-locales" }, () => ({
        contents: 'export { default as en } from "zod/v4/locales/en.js";',
        resolveDir: process.cwd(),
        loader: "js",
      }));
    },
  };
}

/**
 * What each loaded bundle file costs at start-up beyond its code (issue 26: a one-turn exec's
 * peak RSS): the banner's `require` is kept only where the file uses `require`, and Node's
 * builtins are taken with process.getBuiltinModule() instead of an ES import (Node builds an ES
 * facade for each builtin an ES module imports). The builtin object is the same either way, and
 * ES imports are hoisted, so declaring them first changes no order. The declarations go on line
 * 1 (the banner's line) and each import statement becomes spaces of its own length, so the
 * source maps' lines and columns stay true. `imported` (from the metafile) is the builtins the
 * file imports by statement: each must have been rewritten.
 */
function lighterStart(text, imported, path) {
  if (!text.startsWith(banner.js)) return text;
  const declarations = [];
  const rewritten = new Set();
  // An import statement of the minified output starts a line or follows `;` or `}`.
  const statement = /(?<=^|[;}\n])import\s*(?:([\w$]+)\s*|\{([^}]*)\})from\s*"([^"]*)";/g;
  const body = text.slice(banner.js.length).replace(statement, (whole, defaultName, named, id) => {
    if (!isBuiltin(id)) return whole;
    const module = `process.getBuiltinModule(${JSON.stringify(id)})`;
    if (defaultName) declarations.push(`const ${defaultName}=${module};`);
    else {
      const bindings = named.split(",").map((binding) => binding.trim().replace(/\s+as\s+/, ":"));
      declarations.push(`const{${bindings.filter((binding) => binding !== "").join(",")}}=${module};`);
    }
    rewritten.add(id);
    return " ".repeat(whole.length);
  });
  const missed = [...imported].filter((id) => !rewritten.has(id));
  if (missed.length > 0) throw new Error(`${path}: builtin imports not rewritten: ${missed.join(", ")}`);
  const head = /\brequire\b/.test(body)
    ? 'const require=process.getBuiltinModule("node:module").createRequire(import.meta.url);'
    : "";
  return `${head}${declarations.join("")}${body}`;
}
