/**
 * A thread's permissions as the app-server shows them (thread responses, thread/settings/updated):
 * Codex's SandboxPolicy read back exactly as a client gave it, and the active profile.
 */
import { describe, expect, it } from "vitest";
import {
  activeProfileOf,
  permissionsFromWire,
  wireSandboxOf,
} from "../../src/frontends/app-server/permissions-wire.js";
import type { SandboxPolicy } from "../../src/frontends/app-server/protocol/common.js";

describe("app-server permissions on the wire", () => {
  it("a policy comes back as it was given, exclusions included", () => {
    const policies: SandboxPolicy[] = [
      { type: "readOnly" },
      { type: "dangerFullAccess" },
      {
        type: "workspaceWrite",
        writableRoots: ["/extra"],
        networkAccess: true,
        excludeTmpdirEnvVar: true,
        excludeSlashTmp: false,
      },
      {
        type: "workspaceWrite",
        writableRoots: [],
        networkAccess: false,
        excludeTmpdirEnvVar: false,
        excludeSlashTmp: true,
      },
    ];
    for (const policy of policies) expect(wireSandboxOf(permissionsFromWire(policy))).toEqual(policy);
  });

  it("an external sandbox runs without ours; a bare mode has no active profile", () => {
    const external = permissionsFromWire({ type: "externalSandbox", networkAccess: "enabled" });
    expect(external.kind).toBe("danger-full-access");
    expect(activeProfileOf(external)).toBeNull();
  });

  it("a relative writable root is refused, not guessed at", () => {
    expect(() => permissionsFromWire({ type: "workspaceWrite", writableRoots: ["rel"] })).toThrow(
      /'rel' is not an absolute path/,
    );
  });
});
