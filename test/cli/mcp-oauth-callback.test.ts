/**
 * `tscodex mcp login` against callbacks that are not the browser's (issue 37, cause 11): any
 * local process can hit the loopback callback, and another user can read the authorization URL
 * (state included) from $BROWSER's arguments. A callback with a wrong or missing `state` is
 * answered 400 and logged on stderr, and the login goes on; the right one completes it, tokens
 * stored 0600 and never printed.
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { freePort, type SdkExample, startSdkExample } from "../support/sdk-examples.js";

const h = useExecHarness({ config: false });

describe("MCP OAuth login: callbacks with the wrong state", () => {
  let example: SdkExample | undefined;
  afterEach(async () => {
    await example?.stop();
    example = undefined;
  });

  it("ignores (400, logged) a wrong or missing state and a foreign code; completes with the right one", async () => {
    const [mcpPort, authPort] = [await freePort(), await freePort()];
    example = await startSdkExample("simpleStreamableHttp.js", {
      args: ["--oauth"],
      env: { MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
      ready: /MCP Streamable HTTP Server listening/,
    });
    const url = `http://localhost:${mcpPort}/mcp`;
    await h.writeConfig({ extra: `[mcp_servers.demo]\nurl = "${url}"\n` });
    // $BROWSER only records the URL: the test plays the browser (and the intruder).
    const browser = join(h.work, "..", `${h.work.split("/").at(-1)}-browser.sh`);
    const opened = `${browser}.url`;
    await writeFile(browser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });

    const pages: string[] = [];
    let flow: Promise<void> | undefined;
    const result = await h.cli(["mcp", "login", "demo"], {
      env: { BROWSER: browser },
      onSpawn: (child) => {
        let out = "";
        let err = "";
        let ended = false;
        const checks = new Set<() => void>();
        child.stderr?.on("data", (chunk: Buffer) => {
          err += chunk.toString();
          for (const check of checks) check();
        });
        child.stderr?.on("end", () => {
          ended = true;
          for (const check of checks) check();
        });
        // One stderr line per ignored callback (or the end of stderr: the login is over).
        const logged = (count: number) =>
          new Promise<void>((resolve) => {
            const check = () => {
              if (!ended && err.split("\n").length <= count) return;
              checks.delete(check);
              resolve();
            };
            checks.add(check);
            check();
          });
        child.stdout?.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const authorizeUrl = /^(http:\/\/localhost:\d+\/authorize\?\S+)$/m.exec(out)?.[1];
          if (!authorizeUrl || flow) return;
          flow = (async () => {
            const redirectUri = new URL(authorizeUrl).searchParams.get("redirect_uri") ?? "";
            const hit = async (target: string) => {
              // A listener that is gone (the login ended) is recorded, not thrown.
              const page = await fetch(target).then(
                async (response) => `${response.status} ${await response.text()}`,
                (error: Error) => `unreachable: ${error.message}`,
              );
              pages.push(page);
            };
            // An intruder's callback with its own code and a wrong state, then one with no state.
            await hit(`${redirectUri}?code=intruder-code&state=wrong`);
            await logged(1);
            await hit(`${redirectUri}?code=intruder-code`);
            await logged(2);
            // One that read the state from $BROWSER's arguments: its code was not issued for this
            // login's PKCE challenge, so the token endpoint refuses it.
            const state = new URL(authorizeUrl).searchParams.get("state") ?? "";
            await hit(`${redirectUri}?code=intruder-code&state=${encodeURIComponent(state)}`);
            await logged(3);
            // Still waiting: the real browser comes back with the right state and code.
            const authorize = await fetch(authorizeUrl, { redirect: "manual" });
            await hit(authorize.headers.get("location") ?? "");
          })();
        });
      },
    });
    await flow;
    expect(result.code, result.stderr).toBe(0);
    expect(pages).toHaveLength(4);
    expect(pages[0]).toMatch(/^400 The state of this callback does not match the login in progress/);
    expect(pages[1]).toMatch(/^400 The state of this callback does not match the login in progress/);
    expect(pages[2]).toMatch(/^400 the token endpoint refused a callback's authorization code/);
    expect(pages[3]).toBe("200 Authentication complete. You may close this window.");
    const mismatch =
      "tscodex: ignored a login callback whose state did not match; still waiting for the browser";
    expect(result.stderr.trimEnd().split("\n")).toEqual([
      mismatch,
      mismatch,
      expect.stringMatching(
        /^tscodex: the token endpoint refused a callback's authorization code \(.+\); still waiting/,
      ),
    ]);
    expect(result.stdout).toContain("Successfully logged in to MCP server 'demo'.");
    const path = join(h.home, ".credentials.json");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const stored = Object.values(JSON.parse(await readFile(path, "utf8"))) as Record<string, unknown>[];
    expect(stored).toEqual([expect.objectContaining({ server_name: "demo", server_url: url })]);
    expect(typeof stored[0]?.access_token).toBe("string");
    expect(result.stdout + result.stderr).not.toContain(String(stored[0]?.access_token));
  }, 120_000);

  it("--no-browser: a pasted URL with another state is ignored; the right one completes", async () => {
    const [mcpPort, authPort] = [await freePort(), await freePort()];
    example = await startSdkExample("simpleStreamableHttp.js", {
      args: ["--oauth"],
      env: { MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
      ready: /MCP Streamable HTTP Server listening/,
    });
    const url = `http://localhost:${mcpPort}/mcp`;
    const { loginToMcpServer } = await import("../../src/mcp/oauth/login.js");
    const input = new PassThrough();
    const printed: string[] = [];
    const warned: string[] = [];
    let pasted: Promise<void> | undefined;
    await loginToMcpServer({
      name: "demo",
      url,
      home: h.home,
      noBrowser: true,
      env: {},
      input,
      timeoutMs: 20_000,
      warn: (line) => warned.push(line),
      print: (line) => {
        printed.push(line);
        if (!line.startsWith("http")) return;
        pasted = fetch(line, { redirect: "manual" }).then((response) => {
          const location = new URL(response.headers.get("location") ?? "");
          const forged = new URL(location);
          forged.searchParams.set("state", "forged");
          input.write(`${forged}\n${location}\n`);
        });
      },
    });
    await pasted;
    expect(warned).toEqual([
      "ignored a login callback whose state did not match; still waiting for the browser",
    ]);
    expect(printed.at(-1)).toBe("Successfully logged in to MCP server 'demo'.");
    const stored = Object.values(JSON.parse(await readFile(join(h.home, ".credentials.json"), "utf8")));
    expect(stored).toEqual([expect.objectContaining({ server_name: "demo", server_url: url })]);
  }, 120_000);
});
