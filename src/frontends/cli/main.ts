/**
 * `tscodex` entry point. What a host starts and waits for (`--version`, a bare `mcp-server` or
 * `app-server`) and a plain `exec` (exec-argv.ts) skip the command-line parser (commander: ~20 ms
 * and ~3 MB to load and build every command's options); everything else is parsed by program.ts. Each short cut runs the command
 * with the options the parser would give it. Only VERSION is imported up front: each module the
 * bundle splits out is one more file `--version` would read and compile.
 */
import { VERSION } from "../../version.js";

/**
 * zod's JIT compiles each object schema to a validator (new Function) at its first parse: ~1 ms
 * per schema, over 100 ms of an MCP server's first tools/call, for a speed-up a command that
 * parses each schema a few times never earns back. Set before zod loads (it reads this object
 * when it creates a schema); the library keeps zod's defaults.
 */
const zodConfig = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
zodConfig.__zod_globalConfig ??= {};
zodConfig.__zod_globalConfig.jitless ??= true;

/** Run `tscodex` with `argv` (after the program name); resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  if (argv.length === 0 && !terminal) {
    // The interactive UI needs a terminal: say so, and what to run instead (exit 2: a usage error).
    const { NEEDS_TERMINAL } = await import("./tui-commands.js");
    process.stderr.write(`${NEEDS_TERMINAL}\n`);
    return 2;
  }
  const only = argv.length === 1 ? argv[0] : undefined;
  if (only === "--version" || only === "-V") {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (only === "mcp-server" || only === "app-server") {
    try {
      const { APP_SERVER_LISTEN, MCP_SERVER_HOST } = await import("./server-defaults.js");
      if (only === "mcp-server") {
        const { runMcpServer } = await import("../mcp-server/run.js");
        return await runMcpServer({ host: MCP_SERVER_HOST, config: [] });
      }
      const { runAppServer } = await import("../app-server/run.js");
      return await runAppServer({ listen: APP_SERVER_LISTEN, config: [] });
    } catch (error) {
      const { reportFailure } = await import("./failure.js");
      return reportFailure(error);
    }
  }
  if (argv.includes("exec") || argv.includes("e")) {
    const { parseExecArgv } = await import("./exec-argv.js");
    const parsed = parseExecArgv(argv);
    if (parsed) {
      try {
        const { runExec } = await (await import("./load-exec.js")).loadExec();
        return await runExec(parsed.prompt, parsed.options);
      } catch (error) {
        const { reportFailure } = await import("./failure.js");
        return reportFailure(error);
      }
    }
  }
  // No subcommand (or `resume`) on a terminal: the interactive UI.
  if (terminal && !argv.includes("--help") && !argv.includes("-h")) {
    const { parseTuiArgs } = await import("../tui/args.js");
    const tuiArgs = parseTuiArgs(argv);
    if (tuiArgs) {
      try {
        const { runTui } = await import("../tui/run.js");
        return await runTui(tuiArgs);
      } catch (error) {
        const { reportFailure } = await import("./failure.js");
        return reportFailure(error);
      }
    }
  }
  const { runProgram } = await import("./program.js");
  return runProgram(argv);
}
