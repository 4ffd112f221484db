/** `shell_environment_policy`: inherit → default secret excludes → exclude → set → include_only. */
import { describe, expect, it } from "vitest";
import { buildShellEnvironment } from "../../src/exec/environment.js";

const BASE = {
  PATH: "/usr/bin",
  HOME: "/home/u",
  LANG: "C.UTF-8",
  OPENAI_API_KEY: "sk-1",
  GITHUB_TOKEN: "ghp",
  aws_secret_access_key: "s",
  MY_PASSWORD: "p",
  EDITOR: "vi",
  npm_config_cache: "/c",
};

describe("shell environment policy", () => {
  it("default: inherit all, minus names that look like secrets (KEY, SECRET, TOKEN; any case)", () => {
    expect(buildShellEnvironment({}, BASE)).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/u",
      LANG: "C.UTF-8",
      MY_PASSWORD: "p",
      EDITOR: "vi",
      npm_config_cache: "/c",
    });
  });

  it("inherit core keeps only the basics; none keeps nothing", () => {
    expect(buildShellEnvironment({ inherit: "core" }, BASE)).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/u",
      LANG: "C.UTF-8",
    });
    expect(buildShellEnvironment({ inherit: "none" }, BASE)).toEqual({});
  });

  it("ignore_default_excludes keeps secrets; exclude patterns are case-insensitive globs", () => {
    const env = buildShellEnvironment(
      { ignore_default_excludes: true, exclude: ["*password*", "npm_?onfig_*"] },
      BASE,
    );
    expect(env.OPENAI_API_KEY).toBe("sk-1");
    expect(env.GITHUB_TOKEN).toBe("ghp");
    expect(env.MY_PASSWORD).toBeUndefined();
    expect(env.npm_config_cache).toBeUndefined();
  });

  it("set adds (and wins over inherited values); include_only filters last", () => {
    expect(buildShellEnvironment({ inherit: "none", set: { CI: "1", PATH: "/bin" } }, BASE)).toEqual({
      CI: "1",
      PATH: "/bin",
    });
    expect(buildShellEnvironment({ set: { CI: "1" }, include_only: ["PATH", "c?"] }, BASE)).toEqual({
      PATH: "/usr/bin",
      CI: "1",
    });
    // A pattern is the whole name, not a substring; regex characters are literal.
    expect(buildShellEnvironment({ include_only: ["PAT", "HOME.*"] }, { ...BASE, "HOME.x": "y" })).toEqual({
      "HOME.x": "y",
    });
  });
});
