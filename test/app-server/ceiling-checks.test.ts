/**
 * The app-server's ceiling checks (ceiling.ts) on what the wire cannot carry yet: a thread's
 * `permissions` profile id and command/exec's `permissionProfile` are judged as profiles
 * (forced when allowed_permission_profiles is set), as -32600 errors naming the requirement.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Config, loadConfig } from "../../src/config/load.js";
import { enforceCommandCeiling, enforceThreadCeiling } from "../../src/frontends/app-server/ceiling.js";
import type { AppServerRuntime } from "../../src/frontends/app-server/runtime.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let home: TempDir;
let config: Config;
/** No thread is looked up without a thread id. */
const runtime = {} as AppServerRuntime;

beforeEach(async () => {
  home = await tmpdir("tscodex-ceiling-checks-");
  await writeFile(
    join(home.path, "requirements.toml"),
    '[allowed_permission_profiles]\n":read-only" = true\n":workspace" = true\nweb = true\n',
  );
  config = await loadConfig({ home: home.path, env: {} });
});
afterEach(() => home.cleanup());

const refusal = (action: () => unknown) => {
  try {
    action();
  } catch (error) {
    return error as { code: number; message: string };
  }
  return null;
};

describe("the app-server's ceiling checks", () => {
  it("judges a thread's permissions profile, and a legacy mode as its built-in", async () => {
    const path = join(home.path, "requirements.toml");
    await expect(enforceThreadCeiling(runtime, { permissions: "web" }, config)).resolves.toBeUndefined();
    await expect(
      enforceThreadCeiling(runtime, { permissions: ":danger-full-access" }, config),
    ).rejects.toMatchObject({
      code: -32600,
      message: `permission profile \`:danger-full-access\` is not allowed by requirements.toml (allowed_permission_profiles = :read-only, :workspace, web) at ${path}`,
    });
    await expect(
      enforceThreadCeiling(runtime, { sandbox: "danger-full-access" }, config),
    ).rejects.toMatchObject({
      message: `sandbox mode \`danger-full-access\` (the built-in permission profile \`:danger-full-access\`) is not allowed by requirements.toml (allowed_permission_profiles = :read-only, :workspace, web) at ${path}`,
    });
  });

  it("judges command/exec's permissionProfile, else its sandbox policy", () => {
    expect(refusal(() => enforceCommandCeiling(config, null, { id: "other" }))?.message).toMatch(
      /^permission profile `other` is not allowed/,
    );
    expect(
      refusal(() => enforceCommandCeiling(config, null, { id: "web", profileMode: "workspace-write" })),
    ).toBeNull();
    expect(refusal(() => enforceCommandCeiling(config, { type: "externalSandbox" }))?.code).toBe(-32600);
    expect(refusal(() => enforceCommandCeiling(config, { type: "readOnly" }))).toBeNull();
  });
});
