/**
 * The terminal UI and its terminal (tmux, fake model): attached with `--remote` to a separate
 * `tscodex app-server --listen ws://127.0.0.1:0` (its thread works in the server's cwd, and `@`
 * completes the server's files there); a resize re-lays out the screen; 80x24 keeps
 * the composer and status line on screen under a long answer; NO_COLOR and TERM=dumb draw
 * without colour.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WsAppServer } from "../support/app-server-client.js";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { tmpdir } from "../support/tmpdir.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();
let server: WsAppServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const open = useTmuxTerminal(h);

const longAnswer = Array.from({ length: 40 }, (_, i) => `line ${i + 1} of a long answer`).join("\n");

describe("the terminal UI's terminal", () => {
  it("attaches with --remote to a tscodex app-server over WebSocket", async () => {
    server = await WsAppServer.start({ home: h.home, cwd: h.work });
    h.server.enqueue(turn(message("answered over the socket")));
    const t = await open(["--remote", server.url, "hello remote"]);
    await t.waitFor("answered over the socket");
    expect(h.server.requests).toHaveLength(1);
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);
  });

  it("with --remote, @ lists the server's files (its cwd), not the UI's directory's", async () => {
    const serverDir = await tmpdir("tscodex-remote-cwd-");
    try {
      await writeFile(join(serverDir.path, "server-only.txt"), "on the server\n");
      await writeFile(join(h.work, "ui-only.txt"), "beside the UI\n");
      server = await WsAppServer.start({ home: h.home, cwd: serverDir.path });
      const t = await open(["--remote", server.url]);
      await t.waitFor("Ask anything");
      await t.type("/status");
      await t.send("Enter");
      await t.waitFor(`cwd ${serverDir.path}`);
      await t.type("look at @only");
      const screen = await t.waitFor("› server-only.txt");
      expect(screen).not.toContain("ui-only.txt");
      await t.send("Tab");
      await t.waitFor("› look at server-only.txt");
    } finally {
      await serverDir.cleanup();
    }
  });

  it("re-lays out on resize", async () => {
    h.server.enqueue(turn(message(`${"word ".repeat(30)}end`)));
    const t = await open(["wrap me"], { width: 100, height: 30 });
    let screen = await t.waitFor("end");
    expect(screen).toContain("─".repeat(100));
    await t.resize(60, 30);
    screen = await t.waitFor((s) => s.includes("─".repeat(60)) && !s.includes("─".repeat(61)));
    for (const line of screen.split("\n")) expect(line.length).toBeLessThanOrEqual(60);
    expect(screen).toContain("end");
  });

  it("works at 80x24: a long answer scrolls, the composer and status line stay", async () => {
    h.server.enqueue(turn(message(longAnswer)));
    const t = await open(["long please"], { width: 80, height: 24 });
    const screen = await t.waitFor("line 40 of a long answer");
    const rows = screen.replace(/\n+$/, "").split("\n");
    expect(rows.length).toBeLessThanOrEqual(24);
    expect(rows.at(-1)).toMatch(/gpt-5\.2-codex · sandbox/);
    expect(rows.at(-2)).toMatch(/^›/);
    await t.type("still typing");
    await t.waitFor("› still typing");
  });

  for (const env of [{ NO_COLOR: "1" }, { TERM: "dumb" }]) {
    it(`draws no colour with ${Object.keys(env)[0]}`, async () => {
      h.server.enqueue(turn(message("plain **bold** `code`")));
      const t = await open(["colourless"], { env });
      await t.waitFor("plain bold code");
      const coloured = await t.capture(true);
      expect(coloured).not.toContain("\x1b[");
    });
  }
});
