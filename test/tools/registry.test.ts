/**
 * Tool selection against Codex 0.89's requests: for every captured configuration
 * (tool-specs/index.json, flags in cli-args.json) the tools we build come in Codex's order.
 * Codex's test-only test_sync_tool is left out of the comparison, and so is our resume_agent
 * (0.169's tool, appended after 0.89's collab tools).
 */
import { describe, expect, it } from "vitest";
import { findModelFamily } from "../../src/model/family.js";
import type { WireApi } from "../../src/model/types.js";
import { toolSpecName } from "../../src/protocol/tool-spec.js";
import type { AgentCollab } from "../../src/tools/builtin/agents.js";
import { buildToolDefinitions, selectTools, type ToolSelectionInput } from "../../src/tools/registry.js";
import { readReferenceJson } from "../support/reference.js";

const ELSEWHERE = new Set(["test_sync_tool", "resume_agent"]);

/** A thread that can host sub-agents (the collab tools are built only then); never called here. */
const collab: AgentCollab = {
  spawn: () => Promise.reject(new Error("unused")),
  send: () => Promise.reject(new Error("unused")),
  resume: () => Promise.reject(new Error("unused")),
  wait: () => Promise.reject(new Error("unused")),
  close: () => Promise.reject(new Error("unused")),
};

const readJson = <T>(name: string): T => readReferenceJson<T>(`tool-specs/${name}`);

/** The selection input Codex's flags for one capture amount to. */
function inputFor(config: string, args: string[]): ToolSelectionInput {
  const features: Record<string, boolean> = {};
  let model = "gpt-5.2-codex";
  let wireApi: WireApi = "responses";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--enable") features[args[++i] ?? ""] = true;
    if (arg === "--disable") features[args[++i] ?? ""] = false;
    if (arg === "-m") model = config.replace(/^cfg-model-/, "");
    if (arg.includes('wire_api = "chat"')) wireApi = "chat";
  }
  const family = findModelFamily(model);
  // The models_cache trick of the capture: a model listing the experimental tools.
  const withTools =
    config === "cfg-exp-tools"
      ? { ...family, experimentalSupportedTools: ["grep_files", "read_file", "list_dir"] as const }
      : family;
  return { family: withTools, wireApi, tools: {}, features, shellPath: "/bin/bash", collab };
}

const names = (input: ToolSelectionInput) =>
  buildToolDefinitions(input)
    .map((tool) => toolSpecName(tool.spec))
    .filter((name) => !ELSEWHERE.has(name));

describe("tool selection matches Codex 0.89", () => {
  const index = readJson<Record<string, string[]>>("index.json");
  const cliArgs = readJson<Record<string, string[]>>("cli-args.json");
  const configs = Object.keys(index).filter((name) => !name.startsWith("v169"));

  it("has the reference captures", () => {
    expect(configs.length).toBeGreaterThanOrEqual(30);
  });

  for (const config of configs) {
    it(config, () => {
      const args = cliArgs[config] ?? (config.startsWith("cfg-model-") ? ["-m"] : []);
      const input = inputFor(config, args);
      const expected = (index[config] ?? []).filter((name) => !ELSEWHERE.has(name));
      if (input.wireApi === "chat") {
        // Deliberate difference: on chat Codex drops apply_patch; we offer its function form, in
        // the place it has on the Responses wire (after update_plan and request_user_input).
        const anchor = expected.includes("request_user_input") ? "request_user_input" : "update_plan";
        expect(names(input)).toEqual(
          expected.flatMap((name) => (name === anchor ? [name, "apply_patch"] : [name])),
        );
      } else {
        expect(names(input)).toEqual(expected);
      }
    });
  }

  it("sends web_search as Codex does: after apply_patch, live or cached", () => {
    const input = inputFor("cfg-default", []);
    const specOf = (features: Record<string, boolean>) =>
      buildToolDefinitions({ ...input, features }).find((tool) => tool.spec.type === "web_search")?.spec;
    const live = readJson<{ tools: object[] }>("089/cfg-feat-web-search-request.json");
    const cached = readJson<{ tools: object[] }>("089/cfg-feat-web-search-cached.json");
    expect(specOf({ web_search_request: true })).toEqual(
      live.tools.find((tool) => "type" in tool && tool.type === "web_search"),
    );
    expect(specOf({ web_search_cached: true })).toEqual(
      cached.tools.find((tool) => "type" in tool && tool.type === "web_search"),
    );
    expect(specOf({ web_search_cached: true, web_search_request: true })).toEqual({
      type: "web_search",
      external_web_access: true,
    });
  });
});

describe("tscodex's own switches", () => {
  const base = inputFor("cfg-default", []);

  it("file tools: the file_tools feature, or [tools] one by one (which wins)", () => {
    expect(selectTools(base).fileTools).toEqual([]);
    expect(selectTools({ ...base, features: { file_tools: true } }).fileTools).toEqual([
      "grep_files",
      "read_file",
      "list_dir",
    ]);
    expect(
      selectTools({ ...base, features: { file_tools: true }, tools: { grep_files: false } }).fileTools,
    ).toEqual(["read_file", "list_dir"]);
    expect(selectTools({ ...base, tools: { list_dir: true } }).fileTools).toEqual(["list_dir"]);
    const family = { ...base.family, experimentalSupportedTools: ["read_file"] as const };
    expect(selectTools({ ...base, family }).fileTools).toEqual(["read_file"]);
    expect(selectTools({ ...base, family, features: { file_tools: false } }).fileTools).toEqual([]);
  });

  it("file tools, web_search and view_image in Codex's relative order", () => {
    const all = names({
      ...base,
      features: { file_tools: true, web_search_request: true, unified_exec: true },
    });
    expect(all).toEqual([
      "exec_command",
      "write_stdin",
      "list_mcp_resources",
      "list_mcp_resource_templates",
      "read_mcp_resource",
      "update_plan",
      "apply_patch",
      "grep_files",
      "read_file",
      "list_dir",
      "web_search",
      "view_image",
    ]);
  });

  it("[tools] web_search and view_image; no web_search on the chat wire", () => {
    expect(selectTools({ ...base, tools: { web_search: true } }).webSearch).toBe("live");
    expect(selectTools({ ...base, tools: { view_image: false } }).viewImage).toBe(false);
    expect(
      selectTools({ ...base, wireApi: "chat", features: { web_search_request: true } }).webSearch,
    ).toBeNull();
  });

  it("unified_exec replaces any shell tool, but not a disabled one", () => {
    const legacy = { ...base, family: findModelFamily("gpt-4.1") };
    expect(selectTools({ ...legacy, features: { unified_exec: true } })).toMatchObject({
      shellType: "none",
      unifiedExec: true,
    });
    expect(selectTools({ ...base, features: { unified_exec: true, shell_tool: false } })).toMatchObject({
      shellType: "none",
      unifiedExec: false,
    });
  });
});
