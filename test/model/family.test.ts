/**
 * Model families against the reference: for every `codex exec -m SLUG` capture, the request
 * knobs we send and the shell / apply_patch tools we offer match what Codex 0.89 sent.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Config } from "../../src/config/load.js";
import { findModelFamily } from "../../src/model/family.js";
import { requestSettings } from "../../src/session/create.js";
import { selectTools } from "../../src/tools/registry.js";
import { readReferenceJson, referencePath } from "../support/reference.js";

interface Capture {
  request_top_level: Record<string, unknown>;
  tools: { type: string; name?: string }[];
}

function captures(): [string, Capture][] {
  const files = readdirSync(referencePath("tool-specs/089")).filter((name) => name.startsWith("cfg-model-"));
  return files.map((file) => [
    file.replace(/^cfg-model-|\.json$/g, ""),
    readReferenceJson<Capture>(`tool-specs/089/${file}`),
  ]);
}

const baseConfig = { tools: {}, features: {} } as unknown as Config;

describe("model families match Codex 0.89's requests", () => {
  const cases = captures();
  it("has reference captures to compare with", () => {
    expect(cases.length).toBeGreaterThanOrEqual(8);
  });

  for (const [slug, capture] of cases) {
    it(slug, () => {
      const family = findModelFamily(slug);
      const settings = requestSettings(baseConfig, slug);
      const top = capture.request_top_level;
      expect(settings.reasoning).toEqual(top.reasoning);
      expect(settings.include).toEqual(top.include);
      expect(settings.textVerbosity ? { verbosity: settings.textVerbosity } : undefined).toEqual(top.text);
      expect(family.supportsParallelToolCalls).toBe(top.parallel_tool_calls);

      const names = capture.tools.map((tool) => tool.name ?? tool.type);
      const selection = selectTools({
        family,
        wireApi: "responses",
        tools: {},
        features: {},
        shellPath: "/bin/bash",
      });
      const shell = ["shell_command", "shell", "local_shell"].find((name) => names.includes(name)) ?? "none";
      expect(selection.shellType).toBe(shell);
      const patch = capture.tools.find((tool) => tool.name === "apply_patch");
      expect(selection.applyPatch).toBe(patch ? (patch.type === "custom" ? "freeform" : "function") : "none");
    });
  }

  it("lets config override the family and keeps apply_patch usable on the chat wire", () => {
    const family = findModelFamily("gpt-5.2-codex");
    const input = { family, wireApi: "responses" as const, tools: {}, features: {}, shellPath: "/bin/bash" };
    expect(selectTools({ ...input, tools: { shell_type: "shell" } }).shellType).toBe("shell");
    expect(selectTools({ ...input, features: { shell_tool: false } }).shellType).toBe("none");
    expect(selectTools({ ...input, wireApi: "chat" }).applyPatch).toBe("function");
    expect(
      selectTools({ ...input, family: findModelFamily("gpt-4.1"), features: { apply_patch_freeform: true } })
        .applyPatch,
    ).toBe("freeform");
  });

  it("treats dated snapshots like their family", () => {
    expect(findModelFamily("gpt-5.1-codex-2025-11-13").shellType).toBe("shell_command");
    expect(findModelFamily("gpt-5.1-codex-mini").supportsParallelToolCalls).toBe(false);
  });
});
