/**
 * The MCP Inspector CLI (@modelcontextprotocol/inspector 0.15.0, a devDependency) against the
 * built server: tools/list and a tools/call of `ping`. Needs `npm run build`.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const run = promisify(execFile);
// The package's own bin (cli/build/index.js): what `npx @modelcontextprotocol/inspector --cli` runs.
const INSPECTOR = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json")),
  "cli/build/cli.js",
);

let home: TempDir;

beforeAll(async () => {
  home = await tmpdir("tscodex-home-");
});
afterAll(() => home.cleanup());

async function inspector(...args: string[]): Promise<unknown> {
  const { stdout } = await run(
    process.execPath,
    [INSPECTOR, "--cli", process.execPath, CLI_PATH, "mcp-server", ...args],
    {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home.path,
        TSCODEX_HOME: home.path,
        OPENAI_API_KEY: "unused",
      },
      timeout: 30_000,
    },
  );
  return JSON.parse(stdout);
}

describe("MCP Inspector CLI 0.15.0", () => {
  it("lists the tools", async () => {
    const listed = (await inspector("--method", "tools/list")) as { tools: { name: string }[] };
    const names = listed.tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["codex", "codex-reply", "listSessions", "ping", "help"]));
  });

  it("calls ping", async () => {
    const result = await inspector("--method", "tools/call", "--tool-name", "ping");
    expect(result).toMatchObject({ structuredContent: { ok: true, version: expect.any(String) } });
  });
});
