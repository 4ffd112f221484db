/** `--strict-config`'s error text: where each unknown key is written (unknown-fields.ts). */
import { describe, expect, it } from "vitest";
import { unknownFieldError } from "../../src/config/unknown-fields.js";

const at = (text: string, key: string) => unknownFieldError("/h/config.toml", text, key).split("\n")[0];

describe("unknownFieldError", () => {
  it("finds a key under its table, a dotted assignment, a quoted key and a table of its own", () => {
    const text = [
      'model = "x"',
      "[tools]",
      "  bogus = 1",
      "[mcp_servers.docs]",
      "tools.bogus_dotted = 2",
      '"quoted key" = 3',
      "[features.bogus_table]",
      "a = 1",
    ].join("\n");
    expect(at(text, "tools.bogus")).toBe("/h/config.toml:3:3: unknown configuration field `tools.bogus`");
    expect(at(text, "mcp_servers.docs.tools")).toBe(
      "/h/config.toml:5:1: unknown configuration field `mcp_servers.docs.tools`",
    );
    expect(at(text, "mcp_servers.docs.quoted key")).toMatch(/^\/h\/config.toml:6:1: /);
    expect(at(text, "features.bogus_table")).toMatch(/^\/h\/config.toml:7:2: /);
  });

  it("underlines the key as written; a key it cannot place is named with the file only", () => {
    expect(unknownFieldError("/h/c.toml", "  bogus = 1", "bogus").split("\n")).toEqual([
      "/h/c.toml:1:3: unknown configuration field `bogus`",
      "  |",
      "1 |   bogus = 1",
      "  |   ^^^^^",
    ]);
    expect(unknownFieldError("/h/c.toml", "", "gone")).toBe("/h/c.toml: unknown configuration field `gone`");
  });
});
