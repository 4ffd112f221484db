/**
 * The README's library example, copied out of README.md and run as a Node program with an MCP
 * server configured: it finishes its two turns and the process exits by itself. And a `cwd`
 * that does not exist is refused by startThread at once.
 */
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Tscodex } from "../../src/index.js";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { fixtureToml } from "../support/mcp-fixture.js";

const h = useExecHarness({ git: false, key: "lib-key" });
const root = fileURLToPath(new URL("../..", import.meta.url));

/** The first ```ts block under "## Library" in README.md. */
async function libraryExample(): Promise<string> {
  const readme = await readFile(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("\n## Library\n"));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error("README.md: no ts block under ## Library");
  return match[1];
}

describe("the README's library example", () => {
  it("runs with an MCP server configured and the process exits when it is done", async () => {
    await h.writeConfig({ extra: "" });
    await writeFile(
      join(h.home, "config.toml"),
      `${await readFile(join(h.home, "config.toml"), "utf8")}\n${await fixtureToml({ name: "fixture" })}`,
    );
    h.server.enqueue(turn(message("fixed")), turn(message("tested")));
    const program = (await libraryExample())
      .replace('from "tscodex"', `from ${JSON.stringify(join(root, "dist", "index.js"))}`)
      .replace('"/path/to/repo"', JSON.stringify(h.work));
    const script = join(h.work, "example.mjs");
    await writeFile(script, `${program}\nconsole.log("final:", finalResponse, usage.output_tokens >= 0);\n`);
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [script],
        { cwd: h.work, env: { ...h.libraryEnv(), TSCODEX_HOME: h.home }, timeout: 25_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (error.code as number | null) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("final: tested true");
    expect(h.server.requests).toHaveLength(2);
    // The MCP server's tools were offered: the example really ran with a server to release.
    expect(JSON.stringify(h.server.requests[0]?.body)).toContain("mcp__fixture__echo");
  });

  it("refuses a cwd that does not exist at once", () => {
    const agent = new Tscodex({ home: h.home, env: h.libraryEnv() });
    const missing = join(h.work, "no-such-dir");
    expect(() => agent.startThread({ cwd: missing })).toThrow(`cwd ${missing} does not exist`);
    expect(() => agent.startThread({ cwd: "relative/dir" })).toThrow(
      "cwd relative/dir is not an absolute path",
    );
  });
});
