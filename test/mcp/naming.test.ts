import { describe, expect, it } from "vitest";
import { assignToolNames, MAX_TOOL_NAME_LENGTH, qualifiedToolName } from "../../src/mcp/naming.js";

const API_NAME = /^[a-zA-Z0-9_-]+$/;

describe("MCP tool names", () => {
  it("are mcp__server__tool, with `.` and space (and anything else) as `_`", () => {
    expect(qualifiedToolName("fixture", "echo")).toBe("mcp__fixture__echo");
    expect(qualifiedToolName("my.server", "do thing/now")).toBe("mcp__my_server__do_thing_now");
  });

  it("are cut to 64 characters with a stable hash suffix that tells long names apart", () => {
    const a = qualifiedToolName("server", `${"x".repeat(70)}_a`);
    const b = qualifiedToolName("server", `${"x".repeat(70)}_b`);
    expect(a).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(a).toMatch(API_NAME);
    expect(a).not.toBe(b);
    expect(qualifiedToolName("server", `${"x".repeat(70)}_a`)).toBe(a);
    expect(a.startsWith("mcp__server__xxxx")).toBe(true);
  });

  it("are unique and sorted, even when sanitizing makes two collide", () => {
    const named = assignToolNames([
      { server: "s", tool: "b", value: 1 },
      { server: "s", tool: "a.b", value: 2 },
      { server: "s", tool: "a_b", value: 3 },
      { server: "a", tool: "z", value: 4 },
    ]);
    const names = named.map((entry) => entry.name);
    expect(new Set(names).size).toBe(4);
    expect(names).toEqual([...names].sort());
    expect(names[0]).toBe("mcp__a__z");
    expect(named.find((entry) => entry.tool === "a.b")?.name).toBe("mcp__s__a_b");
    expect(named.find((entry) => entry.tool === "a_b")?.name).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
  });
});
