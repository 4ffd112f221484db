/**
 * A turn's sandbox is one value (issue 37, cause 1): pending and per-turn overrides that name
 * any part of it replace it whole, and read-only never has network whatever the flag says.
 */
import { describe, expect, it } from "vitest";
import {
  applyTurnOverrides,
  mergeOverrides,
  permissionsOf,
  type ThreadSettings,
} from "../../src/session/settings.js";

const configured = { networkAccess: false, writableRoots: ["/configured"], tempRoots: ["/tmp"] };
const base: ThreadSettings = {
  cwd: "/work",
  approvalPolicy: "never",
  sandboxMode: "workspace-write",
  ...configured,
  configuredExtent: configured,
};

describe("the sandbox as one value", () => {
  it("a later override naming the mode drops an earlier one's network and roots", () => {
    const merged = mergeOverrides(
      {
        sandboxMode: "workspace-write",
        networkAccess: true,
        writableRoots: ["/extra"],
        approvalPolicy: "on-request",
      },
      { sandboxMode: "read-only" },
    );
    expect(merged).toEqual({ sandboxMode: "read-only", approvalPolicy: "on-request" });
  });

  it("a turn naming a mode gets the configured extent, not an earlier turn's", () => {
    const widened = applyTurnOverrides(base, { networkAccess: true, writableRoots: ["/extra"] });
    expect(widened).toMatchObject({ networkAccess: true, writableRoots: ["/extra"] });
    const readOnly = applyTurnOverrides(widened, { sandboxMode: "read-only" });
    expect(readOnly).toMatchObject({ sandboxMode: "read-only", networkAccess: false });
    const back = applyTurnOverrides(readOnly, { sandboxMode: "workspace-write" });
    expect(back).toMatchObject({ networkAccess: false, writableRoots: ["/configured"] });
  });

  it("read-only has no network even when the stored flag is on; full access always has it", () => {
    expect(permissionsOf({ ...base, sandboxMode: "read-only", networkAccess: true }).networkAccess).toBe(
      false,
    );
    expect(
      permissionsOf({ ...base, sandboxMode: "workspace-write", networkAccess: true }).networkAccess,
    ).toBe(true);
    expect(
      permissionsOf({ ...base, sandboxMode: "danger-full-access", networkAccess: false }).networkAccess,
    ).toBe(true);
  });

  it("a turn that names nothing of the sandbox keeps it", () => {
    const widened = applyTurnOverrides(base, { networkAccess: true });
    expect(applyTurnOverrides(widened, { approvalPolicy: "untrusted" })).toMatchObject({
      networkAccess: true,
    });
  });
});
