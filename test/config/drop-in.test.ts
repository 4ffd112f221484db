/**
 * The configuration an existing Codex setup or the Codex SDK brings: CODEX_HOME, CODEX_API_KEY,
 * openai_base_url, the web_search spellings, a project's .codex/config.toml, a global AGENTS.md
 * in the home, and keys nobody reads (warned about, once).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig, tscodexHome } from "../../src/config/load.js";
import { parseOverride } from "../../src/config/overrides.js";
import { warnConfigOnce } from "../../src/config/warnings.js";
import { visibleLine } from "../../src/frontends/common/terminal-text.js";
import { buildInitialContext } from "../../src/prompt/index.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const dirs: TempDir[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => dir.cleanup()));
});
async function dir(): Promise<string> {
  const made = await tmpdir();
  dirs.push(made);
  return made.path;
}

describe("drop-in configuration", () => {
  it("home: TSCODEX_HOME, else CODEX_HOME, else ~/.tscodex", () => {
    expect(tscodexHome({ TSCODEX_HOME: "/a", CODEX_HOME: "/b" })).toBe("/a");
    expect(tscodexHome({ CODEX_HOME: "/b" })).toBe("/b");
    expect(tscodexHome({})).toMatch(/\.tscodex$/);
  });

  it("the built-in openai provider takes openai_base_url and CODEX_API_KEY before OPENAI_API_KEY", async () => {
    const home = await dir();
    const config = await loadConfig({
      home,
      env: { CODEX_API_KEY: "sk-codex", OPENAI_API_KEY: "sk-openai" },
      overrides: [parseOverride('openai_base_url="http://127.0.0.1:9/v1"')],
    });
    expect(config.provider).toMatchObject({ baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-codex" });
    expect(config.providerProblem).toBeNull();
    const plain = await loadConfig({ home, env: { OPENAI_API_KEY: "sk-openai" } });
    expect(plain.provider.apiKey).toBe("sk-openai");
  });

  it("web_search modes and their other spellings become the web search features", async () => {
    const home = await dir();
    const features = async (...overrides: string[]) =>
      (await loadConfig({ home, env: {}, overrides: overrides.map(parseOverride) })).features;
    expect(await features('web_search="live"')).toMatchObject({
      web_search_request: true,
      web_search_cached: false,
    });
    expect(await features('web_search="cached"')).toMatchObject({
      web_search_request: false,
      web_search_cached: true,
    });
    expect(await features("features.web_search_request=true", 'web_search="disabled"')).toMatchObject({
      web_search_request: false,
      web_search_cached: false,
    });
    expect(await features('tools.web_search="cached"')).toMatchObject({ web_search_cached: true });
    expect(await features("tools.web_search=true")).toMatchObject({ web_search_request: true });
    expect(await features()).toEqual({});
  });

  it("a trusted project's .codex/config.toml (git root down to cwd) applies over the user's file", async () => {
    const home = await dir();
    const repo = await dir();
    await writeFile(
      join(home, "config.toml"),
      `model = "user-model"\nproject_doc_max_bytes = 100\n[projects.${JSON.stringify(repo)}]\ntrust_level = "trusted"\n`,
    );
    await mkdir(join(repo, ".git"));
    await mkdir(join(repo, ".codex"));
    await mkdir(join(repo, "sub", ".codex"), { recursive: true });
    await writeFile(join(repo, ".codex", "config.toml"), 'model = "repo-model"\nmodel_verbosity = "low"\n');
    await writeFile(join(repo, "sub", ".codex", "config.toml"), 'model = "sub-model"\n');
    const config = await loadConfig({ home, env: {}, cwd: join(repo, "sub") });
    expect(config).toMatchObject({ model: "sub-model", verbosity: "low", projectDocMaxBytes: 100 });
    const overridden = await loadConfig({
      home,
      env: {},
      cwd: repo,
      overrides: [parseOverride("model=cli")],
    });
    expect(overridden.model).toBe("cli");
    expect((await loadConfig({ home, env: {} })).model).toBe("user-model");
  });

  it("unknown keys are warned about once per process, not fatal", async () => {
    const home = await dir();
    await writeFile(join(home, "config.toml"), 'model = "m"\nno_such_setting = ["x"]\n');
    const config = await loadConfig({ home, env: {}, overrides: [parseOverride("no_such_key=1")] });
    expect(config.warnings).toEqual([
      `${join(home, "config.toml")}: unknown key 'no_such_setting' (ignored)`,
      "-c no_such_key: unknown key (ignored)",
    ]);
    let written = "";
    const write = (text: string) => {
      written += text;
      return true;
    };
    const out = { write } as unknown as NodeJS.WritableStream;
    warnConfigOnce(config, out, visibleLine);
    warnConfigOnce(await loadConfig({ home, env: {} }), out, visibleLine);
    expect(written.match(/unknown key 'no_such_setting'/g)).toHaveLength(1);
    expect(written).toContain("tscodex: warning: -c no_such_key: unknown key (ignored)");
  });

  it("a global AGENTS.md in the home comes first in the AGENTS.md message", async () => {
    const home = await dir();
    const repo = await dir();
    await writeFile(join(home, "AGENTS.md"), "Global: be terse.\n");
    await mkdir(join(repo, ".git"));
    await writeFile(join(repo, "AGENTS.md"), "Project: use tabs.\n");
    const config = await loadConfig({ home, env: {} });
    expect(config.userInstructions).toBe("Global: be terse.\n");
    const items = await buildInitialContext({
      cwd: repo,
      permissions: {
        sandboxMode: "read-only",
        approvalPolicy: "never",
        writableRoots: [],
        networkAccess: false,
      },
      projectDocMaxBytes: 32768,
      userInstructions: config.userInstructions,
      shellPath: "/bin/bash",
    });
    const text = JSON.stringify(items);
    expect(text).toContain("Global: be terse.\\n\\n--- project-doc ---\\n\\nProject: use tabs.");
  });
});
