import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/load.js";
import { applyOverride, ConfigOverrideError, parseOverride } from "../../src/config/overrides.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let home: TempDir;
afterEach(async () => {
  await home?.cleanup();
});

/** Nothing leaked onto Object.prototype. */
function expectNoPollution(): void {
  const probe: Record<string, unknown> = {};
  expect(probe.sandbox_mode).toBeUndefined();
  expect(probe.x).toBeUndefined();
  expect(probe.approval_policy).toBeUndefined();
}

describe("config keys that reach the prototype", () => {
  it.each([
    "__proto__.sandbox_mode=danger-full-access",
    "constructor.prototype.sandbox_mode=danger-full-access",
    "tools.__proto__.x=1",
    "prototype=1",
  ])("-c %s is refused with a clear error", (raw) => {
    expect(() => parseOverride(raw)).toThrow(ConfigOverrideError);
    expect(() => parseOverride(raw)).toThrow(/the key '(__proto__|constructor|prototype)' is not allowed/);
    expectNoPollution();
  });

  it("a -c value table with a __proto__ key is refused", () => {
    expect(() => parseOverride('tools={ "__proto__" = { x = 1 } }')).toThrow(/'__proto__' is not allowed/);
  });

  it("an MCP-style dotted override map cannot reach the prototype through loadConfig", async () => {
    home = await tmpdir();
    for (const key of ["__proto__.sandbox_mode", "constructor.prototype.x", "features.__proto__"]) {
      await expect(
        loadConfig({
          home: home.path,
          env: {},
          overrides: [{ path: key.split("."), value: "danger-full-access" }],
        }),
      ).rejects.toThrow(/is not allowed in configuration/);
    }
    expectNoPollution();
    const config = await loadConfig({ home: home.path, env: {} });
    expect(config.sandboxMode).toBe("read-only");
  });

  it("applyOverride builds null-prototype tables and ignores inherited properties", () => {
    const target: Record<string, unknown> = Object.create(null);
    applyOverride(target, { path: ["toString", "a"], value: 1 });
    applyOverride(target, { path: ["t", "b"], value: { c: 2 } });
    expect(Object.getPrototypeOf(target.toString)).toBeNull();
    expect(Object.getPrototypeOf(target.t)).toBeNull();
    expect(Object.getPrototypeOf((target.t as Record<string, unknown>).b)).toBeNull();
  });

  it("a config.toml table named __proto__ is refused, naming the file", async () => {
    home = await tmpdir();
    await writeFile(join(home.path, "config.toml"), '[__proto__]\nsandbox_mode = "danger-full-access"\n');
    const load = loadConfig({ home: home.path, env: {} });
    await expect(load).rejects.toThrow(ConfigError);
    await expect(loadConfig({ home: home.path, env: {} })).rejects.toThrow(
      /config\.toml: invalid configuration: the key '__proto__' is not allowed/,
    );
    expectNoPollution();
  });

  it("a profile named __proto__ is refused rather than inherited", async () => {
    home = await tmpdir();
    await expect(loadConfig({ home: home.path, env: {}, profile: "__proto__" })).rejects.toThrow(
      /invalid --profile value `__proto__`/,
    );
  });
});
