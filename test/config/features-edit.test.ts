/** setFeatureFlag: one `[features]` key set or removed, the rest of config.toml as written. */
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { setFeatureFlag } from "../../src/config/features-edit.js";

describe("setFeatureFlag", () => {
  it("replaces a key inside an existing [features] table, before the next table's comments", () => {
    const text = [
      "# top",
      "[features]",
      "# why web search",
      "web_search_request = true",
      "shell_tool = true # keep the shell",
      "",
      "# the fake provider",
      "[model_providers.fake]",
      'name = "fake"',
      "",
    ].join("\n");
    const edit = setFeatureFlag(text, "shell_tool", false);
    expect(edit.preserved).toBe(true);
    expect(edit.text).toBe(
      [
        "# top",
        "[features]",
        "# why web search",
        "web_search_request = true",
        "shell_tool = false",
        "",
        "# the fake provider",
        "[model_providers.fake]",
        'name = "fake"',
        "",
      ].join("\n"),
    );
  });

  it("removes a key, keeping the (possibly empty) table", () => {
    const edit = setFeatureFlag("[features]\nfile_tools = true\n", "file_tools", undefined);
    expect(parse(edit.text)).toEqual({ features: {} });
    expect(edit.text).toContain("[features]");
  });

  it("quotes a name with a dot", () => {
    const edit = setFeatureFlag("", "guardianv2.thread_context", true);
    expect(edit.text).toBe('[features]\n"guardianv2.thread_context" = true\n');
    expect(parse(edit.text)).toEqual({ features: { "guardianv2.thread_context": true } });
  });

  it("falls back to a rewrite for dotted top-level keys, with the same meaning", () => {
    const edit = setFeatureFlag('model = "m"\nfeatures.shell_tool = true\n', "unified_exec", true);
    expect(parse(edit.text)).toEqual({ model: "m", features: { shell_tool: true, unified_exec: true } });
  });
});
