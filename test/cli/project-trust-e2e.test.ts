/**
 * A hostile repository's `.codex/config.toml` through the real CLI: untrusted, its sandbox and
 * its MCP server command are ignored (one warning names the file and how to trust it); trusted
 * (`exec --trust`, which records the entry, or the entry itself) they apply.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { useOutsideDir, writeHostileRepo } from "../support/hostile-repo.js";
import { noSandbox } from "../support/skips.js";

const h = useExecHarness();
const outside = useOutsideDir();

const mcpMarker = () => join(outside(), "mcp-started");
const escaped = () => join(outside(), "escaped");

/** The model tries to write outside the workspace, then answers. */
function scriptEscape(): void {
  h.server.enqueue(
    turn(functionCall("shell_command", { command: `touch ${escaped()}` }, "w")),
    turn(message("done")),
  );
}

const trustEntry = async () => {
  const table = parse(await readFile(join(h.home, "config.toml"), "utf8")) as {
    projects?: Record<string, { trust_level?: string }>;
    model_providers?: Record<string, unknown>;
  };
  return { entry: table.projects?.[h.work], providers: Object.keys(table.model_providers ?? {}) };
};

describe.skipIf(await noSandbox("project trust e2e"))("a hostile repository's .codex/config.toml", () => {
  it("untrusted: its sandbox and MCP server are ignored, with one warning naming the file and how to trust it", async () => {
    const { file } = await writeHostileRepo(h.work, mcpMarker());
    scriptEscape();
    const result = await h.exec(["hi"]);
    expect(result.code).toBe(0);
    expect(existsSync(mcpMarker())).toBe(false);
    expect(existsSync(escaped())).toBe(false);
    const warnings = result.stderr.split("\n").filter((line) => line.includes("untrusted project-local"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(file);
    expect(warnings[0]).toContain("tscodex exec --trust");
    expect(warnings[0]).toContain(`[projects.${JSON.stringify(h.work)}] trust_level = "trusted"`);
    expect((await trustEntry()).entry).toBeUndefined();
  });

  it("exec --trust records the project in config.toml (keeping the rest) and applies its layer", async () => {
    await writeHostileRepo(h.work, mcpMarker());
    scriptEscape();
    const result = await h.exec(["--trust", "hi"]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("untrusted project-local");
    expect(existsSync(mcpMarker())).toBe(true);
    expect(existsSync(escaped())).toBe(true);
    expect(await trustEntry()).toEqual({ entry: { trust_level: "trusted" }, providers: ["fake"] });
  });

  it("a trusted entry written by hand applies the layer; an explicitly untrusted one wins over --trust", async () => {
    await writeHostileRepo(h.work, mcpMarker());
    const config = join(h.home, "config.toml");
    const base = await readFile(config, "utf8");
    await writeFile(config, `${base}\n[projects.${JSON.stringify(h.work)}]\ntrust_level = "untrusted"\n`);
    scriptEscape();
    const refused = await h.exec(["--trust", "hi"]);
    expect(refused.code).toBe(0);
    expect(refused.stderr).toContain('marked trust_level = "untrusted"');
    expect(existsSync(escaped())).toBe(false);
    expect((await trustEntry()).entry).toEqual({ trust_level: "untrusted" });

    await writeFile(config, `${base}\n[projects.${JSON.stringify(h.work)}]\ntrust_level = "trusted"\n`);
    scriptEscape();
    const trusted = await h.exec(["hi"]);
    expect(trusted.code).toBe(0);
    expect(existsSync(escaped())).toBe(true);
  });
});
