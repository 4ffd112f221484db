/**
 * `tscodex doctor [--json]` through the built CLI: Codex 0.171's report shape (cli-parity.md
 * Part 1 §7), the provider probed at its base URL (the fake model server; a closed port fails),
 * config errors and warnings, a configured MCP server started and its tools listed, the store
 * opened; exit 1 exactly when a check fails.
 */

import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { fixtureToml } from "../support/mcp-fixture.js";

const h = useExecHarness({ git: false });

interface Report {
  schemaVersion: number;
  generatedAt: string;
  overallStatus: string;
  codexVersion: string;
  checks: Record<
    string,
    {
      id: string;
      category: string;
      status: string;
      summary: string;
      details: Record<string, string | string[]>;
      remediation: string | null;
      durationMs: number;
    }
  >;
}

async function doctor(): Promise<{ code: number | null; report: Report }> {
  const result = await h.cli(["doctor", "--json"]);
  return { code: result.code, report: JSON.parse(result.stdout) as Report };
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("tscodex doctor", () => {
  it("--json: Codex's shape; the provider is probed at its base URL; exit 0", async () => {
    const { code, report } = await doctor();
    expect(code).toBe(0);
    expect(report.schemaVersion).toBe(1);
    expect(report.generatedAt).toMatch(/^\d+s since unix epoch$/);
    expect(typeof report.codexVersion).toBe("string");
    expect(["ok", "warning"]).toContain(report.overallStatus);
    for (const [id, check] of Object.entries(report.checks)) {
      expect(check.id).toBe(id);
      expect(["ok", "warning", "fail"]).toContain(check.status);
      expect(typeof check.durationMs).toBe("number");
    }
    expect(Object.keys(report.checks)).toEqual(
      expect.arrayContaining([
        "config.load",
        "network.provider_reachability",
        "sandbox.helpers",
        "mcp.config",
        "state.paths",
      ]),
    );
    expect(report.checks["config.load"]).toMatchObject({
      category: "config",
      status: "ok",
      summary: "config loaded",
      details: { CODEX_HOME: h.home, "config.toml": join(h.home, "config.toml") },
      remediation: null,
    });
    const reach = report.checks["network.provider_reachability"];
    expect(reach).toMatchObject({ category: "reachability", status: "ok" });
    expect(Object.values(reach?.details ?? {}).join()).toMatch(/\/v1\/<redacted> reachable \(HTTP \d+\)/);
    expect(h.server.requests.some((request) => request.path === "/v1/responses")).toBe(true);
    expect(report.checks["mcp.config"]).toMatchObject({ status: "ok", summary: "no MCP servers configured" });
    expect(report.checks["state.paths"]).toMatchObject({ status: "ok" });
  });

  it("an unreachable provider fails the report: exit 1, Codex's summary and remediation", async () => {
    const port = await closedPort();
    await writeFile(
      join(h.home, "config.toml"),
      `model_provider = "mock"\n[model_providers.mock]\nname = "mock"\nbase_url = "http://127.0.0.1:${port}/v1"\nenv_key = "FAKE_KEY"\n`,
    );
    const { code, report } = await doctor();
    expect(code).toBe(1);
    expect(report.overallStatus).toBe("fail");
    expect(report.checks["network.provider_reachability"]).toMatchObject({
      status: "fail",
      summary: "one or more required provider endpoints are unreachable over HTTP",
      details: {
        "mock API inference URL": `http://127.0.0.1:${port}/v1/<redacted> connect failed (required)`,
      },
      remediation: "Check proxy, VPN, firewall, DNS, and custom CA configuration.",
    });
  });

  it("bad TOML fails config.load with its line and column; an unknown key only warns", async () => {
    await writeFile(join(h.home, "config.toml"), "model = [\n");
    const bad = await doctor();
    expect(bad.code).toBe(1);
    expect(bad.report.checks["config.load"]).toMatchObject({
      status: "fail",
      summary: "config could not be loaded",
      details: { file: join(h.home, "config.toml") },
      remediation: "Fix the reported config error, then rerun tscodex doctor.",
    });

    // Where the parser noticed the problem (smol-toml: the line after the open array).
    expect(bad.report.checks["config.load"]?.details.line).toMatch(/^\d+$/);
    expect(bad.report.checks["config.load"]?.details.column).toMatch(/^\d+$/);

    await h.writeConfig({ extra: "no_such_key_q = 1" });
    const warned = await doctor();
    expect(warned.code).toBe(0);
    expect(warned.report.overallStatus).toBe("warning");
    expect(warned.report.checks["config.load"]).toMatchObject({
      status: "warning",
      summary: "config loaded",
    });
  });

  it("starts each enabled MCP server and lists its tools; a broken one is a warning", async () => {
    const good = await fixtureToml({ name: "fixture" });
    const broken = await fixtureToml({ name: "broken", mode: "crash" });
    const base = await readFile(join(h.home, "config.toml"), "utf8");
    await writeFile(join(h.home, "config.toml"), `${base}\n${good}\n${broken}`);
    const { code, report } = await doctor();
    expect(code).toBe(0);
    const mcp = report.checks["mcp.config"];
    expect(mcp?.status).toBe("warning");
    expect(mcp?.details.fixture).toMatch(/^started; \d+ tools: .*echo/);
    expect(mcp?.details.broken).toMatch(/^failed: /);
  });

  it("a store that cannot be opened fails state.paths; its password is not shown", async () => {
    const port = await closedPort();
    await h.writeConfig({ extra: `[store]\nurl = "postgres://doc:s3cret-pw@127.0.0.1:${port}/db"` });
    const result = await h.cli(["doctor", "--json"]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.checks["state.paths"]).toMatchObject({ category: "state", status: "fail" });
    expect(result.stdout).not.toContain("s3cret-pw");
  });
});
