/**
 * Which packages a run of the built CLI loaded: the loader hook of test/fixtures/module-log
 * records every module file the process reads; a bundle chunk's source map names the
 * node_modules packages bundled into it, and an external package is loaded from node_modules
 * itself. Used by the start-up tests (issue 16, issue 23): what a command loads before it needs it.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";

const REGISTER = fileURLToPath(new URL("../fixtures/module-log/register.mjs", import.meta.url));
const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));

/** Environment that makes the CLI log the modules it loads to `log`. */
export function moduleLogEnv(log: string): Record<string, string> {
  return { NODE_OPTIONS: `--import=${pathToFileURL(REGISTER).href}`, TSCODEX_MODULE_LOG: log };
}

/**
 * What a logged run loaded: the bundle files (relative to dist/), the npm packages, the
 * project's source files bundled into those files (`src/...`, from the source maps) and the
 * builtins loaded by an ES import (`node:fs`; process.getBuiltinModule() does not show).
 */
export async function loadedModules(log: string): Promise<{
  files: string[];
  packages: Set<string>;
  sources: Set<string>;
  esBuiltins: Set<string>;
}> {
  const urls = (await readFile(log, "utf8")).split("\n").filter((line) => line !== "");
  const esBuiltins = new Set(urls.filter((url) => url.startsWith("node:")));
  const paths = [...new Set(urls.filter((url) => url.startsWith("file:")).map((url) => fileURLToPath(url)))];
  const packages = new Set<string>();
  const sources = new Set<string>();
  const files: string[] = [];
  for (const path of paths) {
    const external = packageOf(path);
    if (external) packages.add(external);
    if (!path.startsWith(DIST)) continue;
    files.push(path.slice(DIST.length));
    const map = JSON.parse(await readFile(`${path}.map`, "utf8")) as { sources: string[] };
    for (const source of map.sources) {
      const bundled = packageOf(source);
      if (bundled) packages.add(bundled);
      const own = /(?:^|\/)(src\/.*)$/.exec(source)?.[1];
      if (own && !bundled) sources.add(own);
    }
  }
  return { files, packages, sources, esBuiltins };
}

function packageOf(path: string): string | undefined {
  return /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
}
