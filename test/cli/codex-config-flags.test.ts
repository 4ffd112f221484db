/**
 * Codex 0.171's config-loading flags through the real CLI and the fake model server (reference
 * cli-parity.md Part 1 §1-§4 and `--local-provider`): `-p NAME` layers `$home/NAME.config.toml`
 * (v2 profiles; the legacy `[profiles.NAME]` table still works, with a warning), `--strict-config`,
 * `--ignore-user-config`, `--ignore-rules`, `--oss --local-provider lmstudio|ollama`. A refused
 * invocation sends the model nothing.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";

const h = useExecHarness({ execArgs: ["--skip-git-repo-check"] });
const lines = (text: string) => text.split("\n").filter((line) => line !== "");
const profile = (name: string, toml: string) => writeFile(join(h.home, `${name}.config.toml`), toml);

describe("-p NAME: $home/NAME.config.toml over config.toml", () => {
  it("layers the profile file key by key; -c wins over it", async () => {
    await profile("work", 'model = "gpt-5.1-codex-max"\nmodel_reasoning_effort = "high"\n');
    h.server.enqueue(turn(message("one")), turn(message("two")));
    // Before exec (a global option) and after it alike.
    expect((await h.cli(["-p", "work", "exec", "--skip-git-repo-check", "hi"])).code).toBe(0);
    expect((await h.exec(["-p", "work", "-c", 'model="gpt-5.2"', "hi"])).code).toBe(0);
    const [first, second] = h.server.requests;
    // The provider still comes from config.toml: the requests reached the fake server.
    expect(first?.body.model).toBe("gpt-5.1-codex-max");
    expect(first?.body.reasoning).toMatchObject({ effort: "high" });
    expect(second?.body.model).toBe("gpt-5.2");
    expect(second?.body.reasoning).toMatchObject({ effort: "high" });
  });

  it("a missing profile file is not an error: the base config runs, nothing said", async () => {
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["-p", "nope", "hi"]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/profile|nope/);
    expect(h.server.requests[0]?.body.model).toBe("gpt-5.2-codex");
  });

  it("writes go to the profile file: exec -p work --trust", async () => {
    await profile("work", 'model = "gpt-5.1-codex-max"\n');
    const before = await readFile(join(h.home, "config.toml"), "utf8");
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["-p", "work", "--trust", "hi"])).code).toBe(0);
    const written = await readFile(join(h.home, "work.config.toml"), "utf8");
    expect(written).toContain(`[projects."${h.work}"]`);
    expect(written).toMatch(/trust_level = "trusted"/);
    expect(await readFile(join(h.home, "config.toml"), "utf8")).toBe(before);
  });

  it("a name that is not a plain name is a usage error (exit 2), before any request", async () => {
    const result = await h.exec(["-p", "bad.name", "hi"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("invalid --profile value `bad.name`; pass a plain name such as `work`");
    expect(result.stderr).toContain("For more information, try '--help'.");
    expect(h.server.requests).toHaveLength(0);
  });

  it("a legacy [profiles.NAME] table still works, with a warning that says how to move it", async () => {
    await h.writeConfig({ extra: '\n[profiles.work]\nmodel = "gpt-legacy"\n' });
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["-p", "work", "hi"]);
    expect(result.code).toBe(0);
    expect(h.server.requests[0]?.body.model).toBe("gpt-legacy");
    expect(result.stderr).toContain(
      `[profiles.work] is the legacy profile form (Codex ignores it since 0.134); move its keys to the top level of ${join(h.home, "work.config.toml")} and remove the table`,
    );
  });

  it("config.toml's own `profile = NAME` still selects it, with a warning to pass --profile", async () => {
    await h.writeConfig({ extra: 'profile = "work"' });
    await profile("work", 'model = "gpt-5.1-codex-max"\n');
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["hi"]);
    expect(result.code).toBe(0);
    expect(h.server.requests[0]?.body.model).toBe("gpt-5.1-codex-max");
    expect(result.stderr).toContain(
      `\`profile = "work"\` is the legacy profile selector (an error in Codex ≥0.134); remove it and pass \`--profile work\`, which layers ${join(h.home, "work.config.toml")}`,
    );
  });

  it("a legacy table together with the profile file is refused, as Codex refuses it", async () => {
    await h.writeConfig({ extra: '\n[profiles.work]\nmodel = "gpt-legacy"\n' });
    await profile("work", 'model = "gpt-5.1-codex-max"\n');
    const result = await h.exec(["-p", "work", "hi"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `--profile \`work\` cannot be used while ${join(h.home, "config.toml")} contains legacy \`profile = "work"\` or \`[profiles.work]\` config; move those settings into ${join(h.home, "work.config.toml")}`,
    );
    expect(h.server.requests).toHaveLength(0);
  });
});

describe("--strict-config: unknown keys are errors", () => {
  it("names the file, line and key with the line underlined; no request", async () => {
    await h.writeConfig({ extra: "bogus_key_xyz = 1\n\n[tools]\nbogus_nested = 2" });
    const result = await h.exec(["--strict-config", "hi"]);
    expect(result.code).toBe(1);
    const path = join(h.home, "config.toml");
    expect(lines(result.stderr)).toEqual([
      "tscodex: error loading config:",
      `${path}:3:1: unknown configuration field \`bogus_key_xyz\``,
      "  |",
      "3 | bogus_key_xyz = 1",
      "  | ^^^^^^^^^^^^^",
      `${path}:6:1: unknown configuration field \`tools.bogus_nested\``,
      "  |",
      "6 | bogus_nested = 2",
      "  | ^^^^^^^^^^^^",
    ]);
    expect(h.server.requests).toHaveLength(0);
    // Without the flag the run goes on, warning about the keys.
    h.server.enqueue(turn(message("ok")));
    const lenient = await h.exec(["hi"]);
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toContain("unknown key 'bogus_key_xyz' (ignored)");
  });

  it("covers -c overrides and the profile file", async () => {
    await profile("work", "bogus_in_profile = true\n");
    const result = await h.cli([
      "--strict-config",
      "exec",
      "--skip-git-repo-check",
      "-p",
      "work",
      "-c",
      "bogus_cli=1",
      "hi",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${join(h.home, "work.config.toml")}:1:1: unknown configuration field \`bogus_in_profile\``,
    );
    expect(result.stderr).toContain("unknown configuration field `bogus_cli` in -c/--config override");
    expect(h.server.requests).toHaveLength(0);
  });
});

describe("--strict-config on other entry points", () => {
  it("the app-server refuses to start on an unknown key; without the flag it serves", async () => {
    await h.writeConfig({ extra: "bogus_key_xyz = 1" });
    const strict = await h.cli(["--strict-config", "app-server"]);
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain("unknown configuration field `bogus_key_xyz`");
    // stdio: stdin closed at once, so it serves nobody and ends cleanly.
    expect((await h.cli(["app-server"])).code).toBe(0);
  });
});

describe("--ignore-user-config", () => {
  it("does not read config.toml; -c overrides still apply and the home is still used", async () => {
    await h.writeConfig({
      model: "gpt-from-user-config",
      extra: 'developer_instructions = "FROM-USER-CONFIG"',
    });
    const provider = `model_providers.mockcli={ name = "mockcli", base_url = "${h.server.url}", wire_api = "responses", env_key = "FAKE_KEY" }`;
    h.server.enqueue(turn(message("ok")));
    const args = ["--ignore-user-config", "-c", 'model_provider="mockcli"', "-c", provider, "hi"];
    const result = await h.exec(args);
    expect(result.code).toBe(0);
    const request = h.server.requests[0];
    expect(request?.body.model).toBe("gpt-5.2-codex");
    expect(request?.rawBody).not.toContain("FROM-USER-CONFIG");
    // The home is still the home: the thread was recorded under it.
    expect(existsSync(join(h.home, "sessions"))).toBe(true);
  });
});

describe("--ignore-rules", () => {
  it("leaves $home/rules/*.rules unloaded: a forbidden command runs", async () => {
    await mkdir(join(h.home, "rules"));
    await writeFile(
      join(h.home, "rules", "default.rules"),
      'prefix_rule(pattern = ["touch", "ruled.txt"], decision = "forbidden", justification = "RULES-SAY-NO")\n',
    );
    const run = (extra: string[]) => {
      h.server.enqueue(
        turn(functionCall("shell_command", { command: "touch ruled.txt" }, "c1")),
        turn(message("done")),
      );
      return h.exec(["-s", "danger-full-access", ...extra, "make the file"]);
    };
    expect((await run([])).code).toBe(0);
    expect(h.outputOf(1, "c1")).toContain("RULES-SAY-NO");
    expect(existsSync(join(h.work, "ruled.txt"))).toBe(false);
    expect((await run(["--ignore-rules"])).code).toBe(0);
    expect(h.outputOf(3, "c1")).not.toContain("RULES-SAY-NO");
    expect(existsSync(join(h.work, "ruled.txt"))).toBe(true);
  });
});

describe("--oss --local-provider lmstudio|ollama", () => {
  // The local providers at the fake server ($CODEX_OSS_BASE_URL); no model configured.
  const oss = () => ({ env: { CODEX_OSS_BASE_URL: h.server.url } });
  const userConfig = (toml: string) => writeFile(join(h.home, "config.toml"), toml);

  it("lmstudio: the Responses API and LM Studio's gpt-oss model; ollama: chat and gpt-oss:20b", async () => {
    await userConfig("");
    h.server.enqueue(turn(message("from lmstudio")), turn(message("from ollama")));
    const lmstudio = await h.exec(["--oss", "--local-provider", "lmstudio", "hi"], oss());
    expect(lmstudio.code).toBe(0);
    const ollama = await h.exec(["--oss", "--local-provider", "ollama", "hi"], oss());
    expect(ollama.code).toBe(0);
    const [first, second] = h.server.requests;
    expect({ path: first?.path, model: first?.body.model }).toEqual({
      path: "/v1/responses",
      model: "openai/gpt-oss-20b",
    });
    expect({ path: second?.path, model: second?.body.model }).toEqual({
      path: "/v1/chat/completions",
      model: "gpt-oss:20b",
    });
  });

  it("config oss_provider picks it when the flag does not; another name is a usage error", async () => {
    await userConfig('oss_provider = "lmstudio"\n');
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["--oss", "hi"], oss())).code).toBe(0);
    expect(h.server.requests[0]?.body.model).toBe("openai/gpt-oss-20b");
    const bad = await h.exec(["--oss", "--local-provider", "vllm", "hi"], oss());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("'vllm' is invalid");
    expect(h.server.requests).toHaveLength(1);
  });
});
