/**
 * The terminal UI attached with `--remote` to an app-server that requires a key
 * (`app-server --listen ws://127.0.0.1:0 --api-key-env VAR`): `--remote-auth-token-env VAR`
 * sends it as `Authorization: Bearer` on the upgrade, and the UI connects and completes a turn;
 * a variable that is not set ends it (exit 1) before any screen; no key prints the server's 401
 * and exits 1 (tmux, fake model).
 */
import { afterEach, describe, expect, it } from "vitest";
import { WsAppServer } from "../support/app-server-client.js";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();
const KEY = "tui-remote-key-42";
let server: WsAppServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const open = useTmuxTerminal(h);

async function keyedServer(): Promise<WsAppServer> {
  server = await WsAppServer.start({ home: h.home, cwd: h.work, env: { APPKEY: KEY } }, [
    "--api-key-env",
    "APPKEY",
  ]);
  return server;
}

describe("the terminal UI with --remote-auth-token-env", () => {
  it("sends the key: connects to a keyed app-server and completes a turn", async () => {
    const { url } = await keyedServer();
    h.server.enqueue(turn(message("answered with the key")));
    const t = await open(["--remote", url, "--remote-auth-token-env", "TOKEN", "hello keyed"], {
      env: { TOKEN: KEY },
    });
    await t.waitFor("answered with the key");
    expect(h.server.requests).toHaveLength(1);
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);
  });

  it("without the key the server's 401 is on screen; an unset variable ends it (exit 1)", async () => {
    const { url } = await keyedServer();
    const refused = await open(["--remote", url, "hello"]);
    expect(await refused.exitCode()).toBe(1);
    // tmux scrolls a dead pane by a row: the line's start may be just above the screen.
    const screen = `${await refused.scrollback()}\n${await refused.capture()}`;
    expect(screen).toMatch(/HTTP 401 Unauthor/);
    expect(screen).toContain(`tscodex: cannot connect to the app-server at ${url}`);
    expect(screen).not.toContain("connecting");

    // Its line is exec's (exec-remote.test.ts reads it); tmux may clear a pane's first line
    // when the program ends at once, so only the status is read here.
    const unset = await open(["--remote", url, "--remote-auth-token-env", "NOT_SET_ANYWHERE", "hello"]);
    expect(await unset.exitCode()).toBe(1);
    expect(h.server.requests).toHaveLength(0);
  });
});
