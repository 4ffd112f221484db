import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { parseOverride } from "../../src/config/overrides.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let home: TempDir;
afterEach(() => home?.cleanup());

async function configWith(toml: string): Promise<string> {
  home = await tmpdir();
  await writeFile(join(home.path, "config.toml"), toml);
  return home.path;
}

describe("config loading", () => {
  it("uses the built-in openai provider and defaults when there is no file", async () => {
    home = await tmpdir();
    const config = await loadConfig({ home: home.path, env: {} });
    expect(config.model).toBe("gpt-5.2-codex");
    expect(config.provider).toMatchObject({
      id: "openai",
      wireApi: "responses",
      baseUrl: "https://api.openai.com/v1",
    });
    expect(config.providerProblem).toMatch(/^no API key for model provider 'openai': set OPENAI_API_KEY/);
    expect(config.projectDocMaxBytes).toBe(32768);
  });

  it("resolves a custom provider with its key, headers and retry settings", async () => {
    const path = await configWith(`
model = "m1"
model_provider = "local"
[model_providers.local]
base_url = "http://127.0.0.1:9/v1/"
wire_api = "chat"
env_key = "LOCAL_KEY"
http_headers = { "x-a" = "1" }
query_params = { "api-version" = "2025" }
request_max_retries = 2
`);
    const config = await loadConfig({ home: path, env: { LOCAL_KEY: "k" } });
    expect(config.provider).toMatchObject({
      id: "local",
      baseUrl: "http://127.0.0.1:9/v1",
      wireApi: "chat",
      apiKey: "k",
      httpHeaders: { "x-a": "1" },
      queryParams: { "api-version": "2025" },
      requestMaxRetries: 2,
      streamMaxRetries: 5,
    });
    expect(config.providerProblem).toBeNull();
  });

  it("applies a profile, then -c overrides, then flags", async () => {
    const path = await configWith(`
model = "base"
[profiles.fast]
model = "from-profile"
approval_policy = "on-failure"
`);
    const config = await loadConfig({
      home: path,
      env: {},
      profile: "fast",
      overrides: [parseOverride("sandbox_mode=workspace-write"), parseOverride("model_context_window=1234")],
    });
    expect(config.model).toBe("from-profile");
    expect(config.approvalPolicy).toBe("on-failure");
    expect(config.sandboxMode).toBe("workspace-write");
    expect(config.contextWindow).toBe(1234);
    const flagged = await loadConfig({ home: path, env: {}, profile: "fast", model: "flag" });
    expect(flagged.model).toBe("flag");
  });

  it("--oss selects the local chat provider with its default model", async () => {
    home = await tmpdir();
    const config = await loadConfig({ home: home.path, env: {}, oss: true });
    expect(config.provider).toMatchObject({
      id: "oss",
      wireApi: "chat",
      baseUrl: "http://localhost:11434/v1",
    });
    expect(config.model).toBe("gpt-oss:20b");
    expect(config.providerProblem).toBeNull();
  });

  it("names the file, key and problem for a bad value", async () => {
    const path = await configWith(`[model_providers.x]\nwire_api = "soap"\n`);
    await expect(loadConfig({ home: path, env: {} })).rejects.toThrow(
      new RegExp(`${join(path, "config.toml")}: key 'model_providers.x.wire_api': .*"responses"`),
    );
  });

  it("reports TOML syntax errors, bad profile names and unknown providers", async () => {
    const path = await configWith(`model = \n`);
    await expect(loadConfig({ home: path, env: {} })).rejects.toThrow(/config.toml: invalid TOML/);
    await writeFile(join(path, "config.toml"), `model_provider = "nope"\n`);
    await expect(loadConfig({ home: path, env: {} })).rejects.toThrow(
      /model_provider 'nope' is not defined; known providers: openai, oss, ollama, lmstudio/,
    );
    // A profile without its file is no error (Codex's v2 profiles); a name that is not plain is.
    await expect(loadConfig({ home: path, env: {}, profile: "p", oss: true })).resolves.toMatchObject({
      profile: "p",
    });
    await expect(loadConfig({ home: path, env: {}, profile: "../p", oss: true })).rejects.toThrow(
      /invalid --profile value `..\/p`/,
    );
  });
});

describe("-c overrides", () => {
  it("parses TOML values and falls back to strings", () => {
    expect(parseOverride("a.b=1")).toEqual({ path: ["a", "b"], value: 1 });
    expect(parseOverride("x=true")).toEqual({ path: ["x"], value: true });
    expect(parseOverride('m="o3"')).toEqual({ path: ["m"], value: "o3" });
    expect(parseOverride("m=gpt-5.2-codex")).toEqual({ path: ["m"], value: "gpt-5.2-codex" });
    expect(parseOverride("l=[1, 2]")).toEqual({ path: ["l"], value: [1, 2] });
    expect(() => parseOverride("novalue")).toThrow(/expected key.path=value/);
  });
});
