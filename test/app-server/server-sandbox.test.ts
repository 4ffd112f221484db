/**
 * The sandbox of what a client does outside threads (command/exec, fs writes): its $TMPDIR root
 * is the server's environment's, the one the runtime was given, like its threads'.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { serverSandboxPolicy } from "../../src/frontends/app-server/server-sandbox.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let home: TempDir | undefined;

afterEach(async () => {
  vi.unstubAllEnvs();
  await home?.cleanup();
  home = undefined;
});

describe("app-server: the server's own sandbox", () => {
  it("adds the server's $TMPDIR to a workspace-write policy, not this process's", async () => {
    home = await tmpdir();
    const config = await loadConfig({ home: home.path, env: {} });
    vi.stubEnv("TMPDIR", "/process-tmp");
    const policy = serverSandboxPolicy({ type: "workspaceWrite" }, "/work", config, {
      TMPDIR: "/server-tmp",
    });
    expect(policy.writableRoots).toEqual(expect.arrayContaining(["/work", "/tmp", "/server-tmp"]));
    expect(policy.writableRoots).not.toContain("/process-tmp");
  });
});
