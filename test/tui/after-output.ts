/**
 * The terminal UI in tmux after a line of "shell output", as a user's terminal has one: a
 * wrapper prints the line, waits until the test has seen it on screen (tmux can wipe what a
 * pane prints in its first moments), then runs the CLI in the same process.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CLI_PATH } from "../support/cli.js";
import { TmuxTerminal } from "../support/tmux.js";

export const EARLIER = "EARLIER-SHELL-OUTPUT";
let runs = 0;

export async function openAfterOutput(
  where: { home: string; work: string },
  args: string[],
  size: { width: number; height: number },
): Promise<TmuxTerminal> {
  const wrapper = join(where.home, "after-output.mjs");
  const go = join(where.home, `go-${++runs}`);
  await writeFile(
    wrapper,
    [
      `import { existsSync } from "node:fs";`,
      `console.log(${JSON.stringify(EARLIER)});`,
      "while (!existsSync(process.env.GO_FILE)) await new Promise((r) => setTimeout(r, 10));",
      `await import(${JSON.stringify(CLI_PATH)});`,
    ].join("\n"),
  );
  const terminal = await TmuxTerminal.start({
    cwd: where.work,
    home: where.home,
    args,
    cli: wrapper,
    env: { FAKE_KEY: "sk-test", GO_FILE: go },
    ...size,
  });
  await terminal.waitFor(EARLIER);
  await writeFile(go, "");
  return terminal;
}

/** The scrollback and the screen as one text (a dead pane's tmux scrolls a row off the screen). */
export async function everything(terminal: TmuxTerminal): Promise<string> {
  const scrollback = await terminal.scrollback();
  return `${scrollback}${scrollback === "" || scrollback.endsWith("\n") ? "" : "\n"}${await terminal.capture()}`;
}
