/**
 * A turn's permissions are one value (issue 37, cause 1; issue 39): pending and per-turn
 * overrides that name them replace them whole, a bare mode is completed by the configured extent
 * (never an earlier turn's), and read-only never has network whatever the extent says.
 */
import { describe, expect, it } from "vitest";
import type { Permissions } from "../../src/protocol/permissions.js";
import {
  type LegacyExtent,
  NO_EXTENT,
  permissionsFromSandboxMode,
} from "../../src/protocol/permissions-legacy.js";
import {
  applyTurnOverrides,
  mergeOverrides,
  permissionsOf,
  type ThreadSettings,
} from "../../src/session/settings.js";

const configured: LegacyExtent = { ...NO_EXTENT, writableRoots: ["/configured"] };
const base: ThreadSettings = {
  cwd: "/work",
  approvalPolicy: "never",
  permissions: permissionsFromSandboxMode("workspace-write", configured),
  configuredExtent: configured,
};
const withNetwork = permissionsFromSandboxMode("workspace-write", {
  ...NO_EXTENT,
  networkAccess: true,
  writableRoots: ["/extra"],
});

describe("the permissions as one value", () => {
  it("a later override naming the mode drops an earlier one's whole value", () => {
    const merged = mergeOverrides(
      { permissions: withNetwork, approvalPolicy: "on-request" },
      { sandboxMode: "read-only" },
    );
    expect(merged).toEqual({ sandboxMode: "read-only", approvalPolicy: "on-request" });
    const back = mergeOverrides({ sandboxMode: "read-only" }, { permissions: withNetwork });
    expect(back).toEqual({ permissions: withNetwork });
  });

  it("a turn naming a bare mode gets the configured extent, not an earlier turn's", () => {
    const widened = applyTurnOverrides(base, { permissions: withNetwork });
    expect(permissionsOf(widened, null)).toMatchObject({ networkAccess: true });
    const readOnly = applyTurnOverrides(widened, { sandboxMode: "read-only" });
    expect(permissionsOf(readOnly, null)).toMatchObject({ sandboxMode: "read-only", networkAccess: false });
    const back = applyTurnOverrides(readOnly, { sandboxMode: "workspace-write" });
    expect(permissionsOf(back, "/tmpdir")).toEqual({
      sandboxMode: "workspace-write",
      approvalPolicy: "never",
      networkAccess: false,
      writableRoots: ["/configured", "/work", "/tmp", "/tmpdir"],
    });
  });

  it("read-only has no network even when the extent has it; full access always has it", () => {
    const networked: LegacyExtent = { ...NO_EXTENT, networkAccess: true };
    const of = (permissions: Permissions) => permissionsOf({ ...base, permissions }, null).networkAccess;
    expect(of(permissionsFromSandboxMode("read-only", networked))).toBe(false);
    expect(of(permissionsFromSandboxMode("workspace-write", networked))).toBe(true);
    expect(of(permissionsFromSandboxMode("danger-full-access"))).toBe(true);
  });

  it("a turn that names nothing of the permissions keeps them", () => {
    const widened = applyTurnOverrides(base, { permissions: withNetwork });
    expect(applyTurnOverrides(widened, { approvalPolicy: "untrusted" }).permissions).toBe(withNetwork);
  });
});
