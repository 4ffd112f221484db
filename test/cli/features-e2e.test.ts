/**
 * `tscodex features list | enable | disable` through the built CLI: Codex 0.171's list layout
 * and messages (cli-parity.md Part 1 §6), and config.toml edited in place (comments kept).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "smol-toml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FEATURES } from "../../src/config/features.js";
import { type CliResult, runCli } from "../support/cli.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let home: TempDir;
beforeEach(async () => {
  home = await tmpdir("tscodex-features-");
});
afterEach(() => home.cleanup());

const cli = (args: string[]): Promise<CliResult> => runCli(args, { cwd: home.path, home: home.path });
const configText = () => readFile(join(home.path, "config.toml"), "utf8");

describe("tscodex features", () => {
  it("list: one line per flag, sorted, columns padded to the longest name and stage plus two", async () => {
    const result = await cli(["features", "list"]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(FEATURES.length);
    const names = lines.map((line) => line.split(/\s+/)[0]);
    expect(names).toEqual([...names].sort());
    const nameWidth = Math.max(...FEATURES.map((feature) => feature.name.length)) + 2;
    const shell = lines.find((line) => line.startsWith("shell_tool "));
    expect(shell).toMatch(new RegExp(`^shell_tool {${nameWidth - "shell_tool".length}}stable +true$`));
    // Every value starts in the same column.
    const valueColumns = new Set(lines.map((line) => line.search(/(true|false)$/)));
    expect(valueColumns.size).toBe(1);
    expect(result.stdout).toContain("web_search_request");
    expect(result.stdout).toMatch(/web_search_request +deprecated +false/);
  });

  it("enable and disable edit [features], keep comments and other keys, and change the list", async () => {
    await writeFile(join(home.path, "config.toml"), '# my settings\nmodel = "m1" # pinned\n');
    const enabled = await cli(["features", "enable", "unified_exec"]);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stdout).toBe("Enabled feature `unified_exec` in config.toml.\n");
    const disabled = await cli(["features", "disable", "shell_tool"]);
    expect(disabled.stdout).toBe("Disabled feature `shell_tool` in config.toml.\n");
    const text = await configText();
    expect(text).toContain("# my settings\n");
    expect(text).toContain('model = "m1" # pinned');
    expect(parse(text)).toEqual({ model: "m1", features: { unified_exec: true, shell_tool: false } });
    const list = await cli(["features", "list"]);
    expect(list.stdout).toMatch(/^shell_tool +stable +false$/m);
    expect(list.stdout).toMatch(/^unified_exec +\S.* +true$/m);
  });

  it("disabling a flag that is off by default removes its key, leaving [features]", async () => {
    await cli(["features", "enable", "file_tools"]);
    expect(parse(await configText())).toEqual({ features: { file_tools: true } });
    const result = await cli(["features", "disable", "file_tools"]);
    expect(result.code).toBe(0);
    expect(parse(await configText())).toEqual({ features: {} });
    expect(await configText()).toContain("[features]");
  });

  it("enabling an under-development flag warns on stderr", async () => {
    const result = await cli(["features", "enable", "file_tools"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "Under-development features enabled: file_tools. Under-development features are incomplete and may behave unpredictably.",
    );
  });

  it("an unknown name fails with exit 1 and leaves config.toml alone", async () => {
    const result = await cli(["features", "enable", "no_such_feature_q"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Unknown feature flag: no_such_feature_q");
    await expect(configText()).rejects.toThrow();
  });
});
