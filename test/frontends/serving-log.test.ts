/** The start line of a network listener names the store without leaking its password. */
import { describe, expect, it } from "vitest";
import { describeServing } from "../../src/frontends/common/serving-log.js";

describe("describeServing", () => {
  it("names a postgres store with its password masked", async () => {
    const line = await describeServing({
      home: "/h",
      store: { url: "postgres://app:hunter2@db.internal:5432/codex" },
      sandboxBackend: "bwrap",
    });
    expect(line).toBe("store postgres postgres://app@db.internal:5432/codex, sandbox bwrap");
    expect(line).not.toContain("hunter2");
  });

  it("names the JSONL sessions directory", async () => {
    const line = await describeServing({ home: "/h", store: { url: null }, sandboxBackend: "landlock" });
    expect(line).toBe("store jsonl /h/sessions, sandbox landlock");
  });
});
