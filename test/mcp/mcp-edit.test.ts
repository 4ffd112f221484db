import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { addMcpServer, removeMcpServer } from "../../src/config/mcp-edit.js";

const FILE = [
  "# my config",
  'model = "gpt-5.2-codex" # the model',
  "",
  "[mcp_servers.old]",
  'command = "x"',
  "",
  "[mcp_servers.old.env]",
  'A = "1"',
  "",
  "# tools below",
  "[tools]",
  "view_image = true",
  "",
].join("\n");

describe("editing [mcp_servers] in config.toml text", () => {
  it("adds a server as its own tables, keeping comments and layout", () => {
    const edit = addMcpServer(FILE, "docs", { command: "npx", args: ["-y", "docs"], env: { T: "1" } });
    expect(edit.preserved).toBe(true);
    expect(edit.text.startsWith(FILE.trimEnd())).toBe(true);
    expect(parse(edit.text).mcp_servers).toEqual({
      old: { command: "x", env: { A: "1" } },
      docs: { command: "npx", args: ["-y", "docs"], env: { T: "1" } },
    });
  });

  it("removes exactly the server's tables (comments of the next table stay)", () => {
    const edit = removeMcpServer(FILE, "old");
    expect(edit.preserved).toBe(true);
    expect(edit.text).toBe(
      [
        "# my config",
        'model = "gpt-5.2-codex" # the model',
        "",
        "# tools below",
        "[tools]",
        "view_image = true",
        "",
      ].join("\n"),
    );
    expect(() => removeMcpServer(FILE, "nope")).toThrow("no MCP server named 'nope'");
  });

  it("replaces a server of the same name", () => {
    const edit = addMcpServer(FILE, "old", { url: "http://h/mcp" });
    expect(parse(edit.text).mcp_servers).toEqual({ old: { url: "http://h/mcp" } });
    expect(edit.text).toContain("# tools below");
  });

  it("falls back to a full rewrite (and says so) for inline tables", () => {
    const inline = 'model = "m"\nmcp_servers = { a = { command = "x" } }\n';
    const added = addMcpServer(inline, "b", { command: "y" });
    expect(added.preserved).toBe(false);
    expect(parse(added.text)).toEqual({
      model: "m",
      mcp_servers: { a: { command: "x" }, b: { command: "y" } },
    });
    const removed = removeMcpServer(inline, "a");
    expect(removed.preserved).toBe(false);
    expect(parse(removed.text)).toEqual({ model: "m" });
  });

  it("writes into an empty file", () => {
    expect(addMcpServer("", "s", { command: "c" }).text).toBe('[mcp_servers.s]\ncommand = "c"\n');
  });
});
