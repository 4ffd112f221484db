/**
 * `npm run screenshots`: the README's pictures of the terminal UI, made from the real UI. It runs
 * the built `tscodex` in a detached tmux (80 columns) against the test suite's scripted fake
 * model: a turn with reasoning, a plan, a patch (a diff) and a command, then a streamed answer
 * with a code block, then the /model picker; it captures the pane with its colours
 * (`capture-pane -e -p`) and renders each capture to a PNG (scripts/screenshot/) in docs/:
 * tui-session.png and tui-model-picker.png. Needs tmux and Debian's `unifont` package.
 *
 *   npm run build && node scripts/run-ts.mjs scripts/tui-screenshot.ts [OUT_DIR]
 */
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { writeFakeConfig } from "../test/support/cli.js";
import {
  customToolCall,
  functionCall,
  message,
  reasoning,
  startFakeModelServer,
  turn,
  usage,
} from "../test/support/fake-model-server.js";
import { tmpdir } from "../test/support/tmpdir.js";
import { TmuxTerminal } from "../test/support/tmux.js";
import { encodePng } from "./screenshot/png.js";
import { loadUnifont, renderCapture } from "./screenshot/terminal-png.js";

const COLUMNS = 80;
const ROWS = 26;
const outDir = resolve(process.argv[2] ?? "docs");

const PATCH = `*** Begin Patch
*** Add File: greet.py
+def greet(name):
+    return f"hello {name}"
*** End Patch
`;

const ANSWER = `Added **greet()** in \`greet.py\`:
\`\`\`python
def greet(name):
    return f"hello {name}"  # one line
\`\`\`
It prints \`hello you\`.`;

const font = loadUnifont();
const server = await startFakeModelServer();
const home = await tmpdir("tscodex-shot-home-");
const work = await tmpdir("tscodex-shot-work-");
let terminal: TmuxTerminal | undefined;
try {
  execFileSync("git", ["init", "-q", work.path]);
  await writeFakeConfig(home.path, { baseUrl: server.url });
  server.enqueue(
    turn(
      reasoning("Planning a small greet helper and a check that it runs"),
      functionCall("update_plan", {
        plan: [
          { step: "write greet()", status: "completed" },
          { step: "run it", status: "in_progress" },
        ],
      }),
      customToolCall("apply_patch", PATCH, "call_patch"),
    ),
    turn(
      functionCall(
        "shell_command",
        { command: `python3 -c 'from greet import greet; print(greet("you"))'` },
        "call_run",
      ),
    ),
    turn(message(ANSWER), usage({ input: 30_000, output: 2_000 })),
  );
  terminal = await TmuxTerminal.start({
    cwd: work.path,
    home: home.path,
    cli: resolve("bin/tscodex.js"),
    args: ["-s", "workspace-write", "-a", "never", "-c", "tools.update_plan=true", "add a greet function"],
    env: { FAKE_KEY: "sk-test" },
    width: COLUMNS,
    height: ROWS,
  });
  await mkdir(outDir, { recursive: true });
  const shoot = async (name: string) => {
    const capture = await (terminal as TmuxTerminal).capture(true);
    const png = encodePng(renderCapture(capture, { columns: COLUMNS, rows: ROWS, font }));
    const file = join(outDir, name);
    await writeFile(file, png);
    console.log(`${file}: ${png.length} bytes`);
  };
  await terminal.waitFor((screen) => screen.includes("It prints") && !/working \d+s/.test(screen), 30_000);
  await shoot("tui-session.png");
  // The /model picker over the same session.
  await terminal.type("/model");
  await terminal.send("Enter");
  await terminal.waitFor("Enter confirm");
  await terminal.send("Down");
  await terminal.waitFor(/^› gpt-5\.2 /m);
  await shoot("tui-model-picker.png");
} finally {
  await terminal?.kill();
  await server.close();
  await home.cleanup();
  await work.cleanup();
}
