/**
 * A terminal UI that cannot open its thread says why and exits 1, as Codex 0.171 does, instead
 * of a live screen stuck at `connecting`: a bad `-c` value, a resume id that names no stored
 * thread, `--remote` to a closed port. The message stays on the terminal below the shell's
 * earlier output, which the UI never erased, and no composer is left behind. `-C` naming a
 * missing directory is refused the same way before any screen (tmux, 80 and 120 columns).
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { freePort } from "../support/sdk-examples.js";
import type { TmuxTerminal } from "../support/tmux.js";
import { EARLIER, everything, openAfterOutput } from "./after-output.js";

const h = useExecHarness();
let current: TmuxTerminal | undefined;
afterEach(async () => {
  await current?.kill();
  current = undefined;
});

async function expectRefused(args: string[], width: number, message: string | RegExp): Promise<void> {
  await current?.kill();
  const t = await openAfterOutput(h, args, { width, height: 24 });
  current = t;
  expect(await t.exitCode()).toBe(1);
  await t.waitFor((s) => (typeof message === "string" ? s.includes(message) : message.test(s)));
  // tmux scrolls a dead pane by a row, so the earlier line may be just above the screen.
  const screen = await everything(t);
  expect(screen).toContain(EARLIER);
  expect(screen.indexOf(EARLIER)).toBeLessThan(screen.search(/tscodex: /));
  expect(screen).not.toMatch(/connecting|Ask anything|›/);
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
