/**
 * A terminal UI that cannot open its thread says why and exits 1, as Codex 0.171 does, instead
 * of a live screen stuck at `connecting`: a bad `-c` value, a resume id that names no stored
 * thread, `--remote` to a closed port. The message stays on the terminal below the shell's
 * earlier output, which the UI never erased, and no composer is left behind. `-C` naming a
 * missing directory is refused the same way before any screen (tmux, 80 and 120 columns).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { useExecHarness } from "../support/exec-harness.js";
import { freePort } from "../support/sdk-examples.js";
import { TmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();
const EARLIER = "EARLIER-SHELL-OUTPUT";

let current: TmuxTerminal | undefined;

/** The UI in tmux after a line of "shell output" (printed by a wrapper that then runs the CLI). */
async function openAfterOutput(args: string[], width: number): Promise<TmuxTerminal> {
  await current?.kill();
  const wrapper = join(h.home, "after-output.mjs");
  const go = join(h.home, `go-${width}-${Date.now()}`);
  // It waits for the test to see its line: tmux can wipe what a pane prints in its first moments.
  await writeFile(
    wrapper,
    [
      `import { existsSync } from "node:fs";`,
      `console.log(${JSON.stringify(EARLIER)});`,
      `while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 10));`,
      `await import(${JSON.stringify(CLI_PATH)});`,
    ].join("\n"),
  );
  current = await TmuxTerminal.start({
    cwd: h.work,
    home: h.home,
    args,
    cli: wrapper,
    env: { FAKE_KEY: "sk-test" },
    width,
    height: 24,
  });
  await current.waitFor(EARLIER);
  await writeFile(go, "");
  return current;
}

async function expectRefused(args: string[], width: number, message: string | RegExp): Promise<void> {
  const t = await openAfterOutput(args, width);
  try {
    expect(await t.exitCode()).toBe(1);
    await t.waitFor((s) => (typeof message === "string" ? s.includes(message) : message.test(s)));
    // tmux scrolls a dead pane by a row, so the earlier line may be just above the screen.
    const screen = `${await t.scrollback()}\n${await t.capture()}`;
    expect(screen).toContain(EARLIER);
    expect(screen.indexOf(EARLIER)).toBeLessThan(screen.search(/tscodex: /));
    expect(screen).not.toMatch(/connecting|Ask anything|›/);
  } finally {
    await t.kill();
    current = undefined;
  }
}

describe("start-up failures of the terminal UI", () => {
  for (const width of [80, 120]) {
    it(`a bad -c value prints the error and exits 1 (${width} columns)`, async () => {
      await expectRefused(["-c", "sandbox_mode=bogus"], width, /tscodex: .*sandbox_mode/);
    });
  }

  it("a resume id that names no stored thread prints Codex's advice and exits 1", async () => {
    const id = "01a22337-7766-7db1-ad44-000000000000";
    await expectRefused(["resume", id], 120, `no saved thread found with id ${id}`);
    await expectRefused(["resume", "0000bad"], 120, "no saved thread found with id 0000bad");
  });

  it("--remote to a closed port prints the connection error and exits 1", async () => {
    const port = await freePort();
    await expectRefused(
      ["--remote", `ws://127.0.0.1:${port}`],
      80,
      `tscodex: cannot connect to the app-server at ws://127.0.0.1:${port}`,
    );
  });

  it("-C naming a missing directory is refused before any screen", async () => {
    const missing = join(h.work, "no-such-dir");
    await expectRefused(["-C", missing], 80, `tscodex: -C ${missing} does not exist`);
    expect(h.server.requests).toHaveLength(0);
  });
});
