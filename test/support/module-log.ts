/**
 * Which packages a run of the built CLI loaded: the preload and loader hook of
 * test/fixtures/module-log record every module file the process loads (CommonJS by require, ES
 * modules and builtins by the ES loader); a bundle chunk's source map names the
 * node_modules packages bundled into it, and an external package is loaded from node_modules
 * itself. Used by the start-up tests (issue 16, issue 23): what a command loads before it needs it.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";

const PRELOAD = fileURLToPath(new URL("../fixtures/module-log/require.cjs", import.meta.url));
const REGISTER = fileURLToPath(new URL("../fixtures/module-log/register.mjs", import.meta.url));
const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));

/** Environment that makes the CLI log the modules it loads to `log`. */
export function moduleLogEnv(log: string): Record<string, string> {
  return {
    NODE_OPTIONS: `--require="${PRELOAD}" --import=${pathToFileURL(REGISTER).href}`,
    TSCODEX_MODULE_LOG: log,
  };
}

/**
 * What a logged run loaded: the bundle files (relative to dist/), the npm packages, the
 * project's source files bundled into those files (`src/...`, from the source maps) and what
 * the ES loader loaded as an ES module: files and builtins (`node:fs`; require() does not show).
 * (The log's own --import hook makes Node hand even a CommonJS main to the ES loader, as
 * `commonjs`: that is not an ES module.)
 */
export async function loadedModules(log: string): Promise<{
  files: string[];
  packages: Set<string>;
  sources: Set<string>;
  esModules: Set<string>;
}> {
  const entries = (await readFile(log, "utf8"))
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const space = line.indexOf(" ");
      return { kind: line.slice(0, space), url: line.slice(space + 1) };
    });
  const esModules = new Set(
    entries.filter(({ kind }) => kind === "module" || kind === "builtin").map(({ url }) => url),
  );
  const paths = [
    ...new Set(entries.filter(({ url }) => url.startsWith("file:")).map(({ url }) => fileURLToPath(url))),
  ];
  const packages = new Set<string>();
  const sources = new Set<string>();
  const files: string[] = [];
  for (const path of paths) {
    const external = packageOf(path);
    if (external) packages.add(external);
    if (!path.startsWith(DIST)) continue;
    files.push(path.slice(DIST.length));
    // Only the bundler's runtime helpers come from no source, and so have no map.
    if (!(await readFile(path, "utf8")).includes("//# sourceMappingURL=")) continue;
    const map = JSON.parse(await readFile(`${path}.map`, "utf8")) as { sources: string[] };
    for (const source of map.sources) {
      const bundled = packageOf(source);
      if (bundled) packages.add(bundled);
      const own = /(?:^|\/)(src\/.*)$/.exec(source)?.[1];
      if (own && !bundled) sources.add(own);
    }
  }
  return { files, packages, sources, esModules };
}

function packageOf(path: string): string | undefined {
  return /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
}
