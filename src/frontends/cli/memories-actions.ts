/**
 * The work of `tscodex memories …` (loaded only when one runs). Global memories live in
 * `$TSCODEX_HOME/memories/`; `--project` picks the current project's `.tscodex/memories/`
 * (its git root, else the current directory). A project's memories come with the repo: `list`
 * shows their control characters, `show` only on a terminal (redirected, the text is exact; see
 * terminal-text.ts).
 */
import { tscodexHome } from "../../config/load.js";
import {
  listMemories,
  type MemoryScope,
  memoryDirs,
  projectRootOf,
  readMemory,
  removeMemory,
  writeMemory,
} from "../../prompt/memories.js";
import { visibleLine, visibleOnTerminal } from "../common/terminal-text.js";

export interface ScopeOptions {
  project?: boolean;
}

export async function list(options: { json?: boolean }): Promise<number> {
  const found = await listMemories(tscodexHome(), process.cwd());
  if (options.json) process.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
  else if (found.length === 0) process.stdout.write("No memories.\n");
  else
    for (const memory of found)
      process.stdout.write(`${[memory.id, memory.scope, memory.summary].map(visibleLine).join("\t")}\n`);
  return 0;
}

export async function show(id: string): Promise<number> {
  const found = await readMemory(tscodexHome(), process.cwd(), id);
  if (!found) throw new Error(`no memory with id '${id}'`);
  process.stdout.write(visibleOnTerminal(found.text, process.stdout));
  return 0;
}

export async function add(id: string, text: string | undefined, options: ScopeOptions): Promise<number> {
  const path = await writeMemory(await dirFor(options), id, text ?? (await readStdin()));
  process.stdout.write(`${path}\n`);
  return 0;
}

export async function remove(id: string, options: ScopeOptions): Promise<number> {
  if (await removeMemory(await dirFor(options), id)) return 0;
  throw new Error(`no ${scopeOf(options)} memory with id '${id}'`);
}

const scopeOf = (options: ScopeOptions): MemoryScope => (options.project ? "project" : "global");

async function dirFor(options: ScopeOptions): Promise<string> {
  return memoryDirs(tscodexHome(), await projectRootOf(process.cwd()))[scopeOf(options)];
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new Error("no memory text: pass it as an argument or pipe it on stdin");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
