/**
 * Who may use `tscodex proxy` (the rules of issue 15 item 4, as for the MCP server): a
 * non-loopback bind needs a key; a key-less loopback proxy serves local processes but refuses
 * commands inside a tscodex sandbox, which reach 127.0.0.1 when they have network access.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { prepareSandboxedCommand } from "../../src/policy/sandbox/index.js";
import { CLI_PATH } from "../support/cli.js";
import { useProxyHarness } from "../support/proxy-harness.js";
import { runProbe, sandboxBackends } from "../support/sandbox-probe.js";

const h = useProxyHarness();

const backends = await sandboxBackends();

/** A node process that GETs /v1/models and prints the status code. */
const getModels = (url: string) => [
  process.execPath,
  "-e",
  `fetch(${JSON.stringify(`${url}/models`)}).then((r) => console.log(r.status), (e) => console.log(String(e)))`,
];

const run = (argv: string[]) => runProbe(argv, h.work);

describe("tscodex proxy authentication", () => {
  it("refuses to listen beyond loopback without a key", async () => {
    const child = spawn(process.execPath, [CLI_PATH, "proxy", "--port", "0", "--host", "0.0.0.0"], {
      cwd: h.work,
      env: { PATH: process.env.PATH ?? "", HOME: h.home, TSCODEX_HOME: h.home },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    const exit = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      if (/listening on/.test(stderr)) child.kill("SIGTERM");
    });
    expect(await exit).not.toBe(0);
    expect(stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without a key/);
  });

  it("a key-less loopback proxy serves an unsandboxed local process", async () => {
    const proxy = await h.startProxy();
    expect(await run(getModels(proxy.url))).toBe("200");
  });

  for (const { name, status } of backends) {
    it.skipIf(!status.available)(
      `a key-less proxy refuses a command inside the ${name} sandbox (network on)`,
      async () => {
        const proxy = await h.startProxy();
        const prepared = await prepareSandboxedCommand(
          getModels(proxy.url),
          h.work,
          { mode: "workspace-write", writableRoots: [], networkAccess: true },
          { backend: name },
        );
        expect(await run(prepared.argv)).toBe("403");
      },
    );
  }
});
