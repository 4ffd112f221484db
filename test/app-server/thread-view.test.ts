/**
 * A thread's sandbox as the app-server shows it (thread responses, thread/settings/updated):
 * whether $TMPDIR is excluded is judged by the server's environment, the one its threads were
 * given, not by whatever this process's environment says.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { sandboxPolicyOf, threadSettingsOf } from "../../src/frontends/app-server/thread-view.js";
import type { EffectiveSettings } from "../../src/session/thread.js";

const settings = (tempRoots: string[]): EffectiveSettings => ({
  cwd: "/work",
  approvalPolicy: "on-request",
  sandboxMode: "workspace-write",
  networkAccess: false,
  writableRoots: [],
  tempRoots,
  model: "gpt-5.2-codex",
  provider: "openai",
  effort: null,
  collaborationMode: { mode: "default", developerInstructions: null },
});

describe("app-server thread view: sandbox policy", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("reads $TMPDIR from the server's environment", () => {
    vi.stubEnv("TMPDIR", "/process-tmp");
    const serverEnv = { TMPDIR: "/server-tmp" };
    expect(sandboxPolicyOf(settings(["/tmp", "/server-tmp"]), serverEnv)).toMatchObject({
      type: "workspaceWrite",
      excludeTmpdirEnvVar: false,
      excludeSlashTmp: false,
    });
    expect(threadSettingsOf(settings(["/tmp"]), serverEnv).sandboxPolicy).toMatchObject({
      excludeTmpdirEnvVar: true,
    });
  });

  it("shows $TMPDIR as not excluded when the server has none", () => {
    vi.stubEnv("TMPDIR", "/process-tmp");
    expect(sandboxPolicyOf(settings([]), {})).toMatchObject({
      excludeTmpdirEnvVar: false,
      excludeSlashTmp: true,
    });
  });
});
