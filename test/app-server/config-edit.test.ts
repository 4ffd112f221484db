import { describe, expect, it } from "vitest";
import { applyEdits, configVersion, parseConfigText } from "../../src/frontends/app-server/config-edit.js";

const FILE = [
  "# top comment",
  'model = "gpt-5.2-codex"',
  "",
  "# providers",
  "[model_providers.fake]",
  'base_url = "http://x/v1"  # inline comment',
  "",
  "[tools]",
  "view_image = true",
  "",
].join("\n");

const set = (keyPath: string, value: unknown, mergeStrategy: "replace" | "upsert" = "replace") => ({
  keyPath,
  value,
  mergeStrategy,
});

describe("config edits", () => {
  it("replaces a value on its own line and keeps every comment", () => {
    const { text } = applyEdits(FILE, [set("model", "gpt-5.1")]);
    expect(text).toBe(FILE.replace('model = "gpt-5.2-codex"', 'model = "gpt-5.1"'));
  });

  it("adds a key at the end of its table, and a missing table at the end of the file", () => {
    const { text } = applyEdits(FILE, [
      set("tools.web_search", true),
      set("sandbox_workspace_write.network_access", true),
    ]);
    expect(text).toContain("[tools]\nview_image = true\nweb_search = true\n");
    expect(text.trimEnd().endsWith("[sandbox_workspace_write]\nnetwork_access = true")).toBe(true);
    expect(text).toContain("# providers");
    expect(parseConfigText(text).sandbox_workspace_write).toEqual({ network_access: true });
  });

  it("adds a top-level key before the first table (not inside it)", () => {
    const { text, doc } = applyEdits(FILE, [set("approval_policy", "never")]);
    expect(doc.approval_policy).toBe("never");
    expect(parseConfigText(text)).toEqual(doc);
    expect(text).toContain('model = "gpt-5.2-codex"\napproval_policy = "never"\n\n# providers\n');
  });

  it("removes a key given null, and merges tables with upsert", () => {
    const { text, doc } = applyEdits(FILE, [
      set("tools.view_image", null),
      set("model_providers.fake", { name: "Fake", base_url: "http://y/v1" }, "upsert"),
    ]);
    expect(doc.tools).toEqual({});
    expect(doc.model_providers).toEqual({ fake: { name: "Fake", base_url: "http://y/v1" } });
    expect(parseConfigText(text)).toEqual(doc);
  });

  it("falls back to a full rewrite when a line edit cannot express the change", () => {
    const inline = 'model_providers = { fake = { base_url = "http://x/v1" } }\n';
    const { text, doc } = applyEdits(inline, [set("model_providers.fake.base_url", "http://z/v1")]);
    expect(parseConfigText(text)).toEqual(doc);
    expect(doc).toEqual({ model_providers: { fake: { base_url: "http://z/v1" } } });
  });

  it("refuses to set a key below a value that is not a table", () => {
    expect(() => applyEdits(FILE, [set("model.name", "x")])).toThrow("'model' is not a table");
  });

  it("versions a file by its SHA-256", () => {
    expect(configVersion("")).toBe("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });
});
