/**
 * `tscodex` entry point. What a host starts and waits for (`--version`, a bare `mcp-server` or
 * `app-server`) skips the command-line parser (commander: ~20 ms to load and build every
 * command's options); everything else is parsed by program.ts. Each short cut runs the command
 * with the options the parser would give it.
 */
import { VERSION } from "../../version.js";
import { reportFailure } from "./failure.js";
import { APP_SERVER_LISTEN, MCP_SERVER_HOST } from "./server-defaults.js";

/** Run `tscodex` with `argv` (after the program name); resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const only = argv.length === 1 ? argv[0] : undefined;
  try {
    switch (only) {
      case "--version":
      case "-V":
        process.stdout.write(`${VERSION}\n`);
        return 0;
      case "mcp-server": {
        const { runMcpServer } = await import("../mcp-server/run.js");
        return await runMcpServer({ host: MCP_SERVER_HOST, config: [] });
      }
      case "app-server": {
        const { runAppServer } = await import("../app-server/run.js");
        return await runAppServer({ listen: APP_SERVER_LISTEN, config: [] });
      }
    }
  } catch (error) {
    return reportFailure(error);
  }
  const { runProgram } = await import("./program.js");
  return runProgram(argv);
}
