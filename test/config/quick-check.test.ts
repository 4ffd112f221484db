/**
 * The zod-free config check (what a bundled command runs first) may only vouch for a table zod
 * accepts unchanged; it must vouch for ordinary configs (or it saves nothing), and leave
 * everything unusual or invalid to zod, which words the error.
 */
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { configJsonSchema } from "../../src/config/config-json-schema.js";
import { certainlyValid } from "../../src/config/quick-check.js";
import { configFileSchema } from "../../src/config/schema.js";

const schema = configJsonSchema();

/** Ordinary configs: the check vouches for each, and zod agrees, returning the same table. */
const ORDINARY = [
  "",
  'model = "gpt-5.2-codex"',
  [
    'model = "gpt-5.2-codex"',
    'model_provider = "fake"',
    'approval_policy = "on-request"',
    'sandbox_mode = "workspace-write"',
    'model_reasoning_effort = "high"',
    "project_doc_max_bytes = 0",
    "[model_providers.fake]",
    'name = "fake"',
    'base_url = "http://127.0.0.1:9/v1"',
    'wire_api = "responses"',
    'env_key = "FAKE_KEY"',
    "request_max_retries = 3",
    "stream_idle_timeout_ms = 2000",
    "[model_providers.fake.http_headers]",
    'X-Team = "a"',
    "[features]",
    "unified_exec = true",
    "[tools]",
    "web_search = true",
    "[profiles.fast]",
    'model = "gpt-5.2-codex-mini"',
    'model_verbosity = "low"',
    "[sandbox_workspace_write]",
    'writable_roots = ["/tmp/x"]',
    "network_access = false",
    "[[exec_policy.prefix_rules]]",
    'pattern = ["git", ["status", "log"]]',
    'decision = "allow"',
    "[mcp_server]",
    "max_message_bytes = 4096",
    "[some_future_key]",
    "x = 1",
  ].join("\n"),
];

/** Configs the check must leave to zod: invalid ones, and ones it cannot vouch for. */
const DEFERRED = [
  "model = 5",
  'model = ""',
  'approval_policy = "sometimes"',
  "project_doc_max_bytes = -1",
  "project_doc_max_bytes = 1.5",
  "model_context_window = inf",
  "model_context_window = nan",
  "[model_providers.fake]\nrequest_max_retries = 101",
  '[model_providers.fake]\nwire_api = "grpc"',
  "[features]\nunified_exec = 1",
  '[[exec_policy.prefix_rules]]\npattern = []\ndecision = "allow"',
  '[[exec_policy.prefix_rules]]\npattern = ["git"]\ndecision = "allow"\nextra = 1',
  '[user_input]\nexec_answer = "first"\nextra = true',
  // A refinement (exactly one of command / url) JSON Schema cannot state.
  '[mcp_servers.docs]\ncommand = "docs-server"',
  '[mcp_servers.web]\nurl = "http://127.0.0.1:9/mcp"',
  "rollout_fsync = 1979-05-27T07:32:00Z",
];

describe("the zod-free config check", () => {
  it("vouches for ordinary configs, which zod returns unchanged", () => {
    for (const toml of ORDINARY) {
      const table = parseToml(toml);
      expect(certainlyValid(table, schema), toml).toBe(true);
      const parsed = configFileSchema.safeParse(table);
      expect(parsed.success, toml).toBe(true);
      expect(parsed.data, toml).toEqual(table);
    }
  });

  it("leaves invalid and unusual configs to zod", () => {
    for (const toml of DEFERRED) expect(certainlyValid(parseToml(toml), schema), toml).toBe(false);
  });

  it("never vouches for a table zod refuses or changes", () => {
    for (const toml of [...ORDINARY, ...DEFERRED]) {
      const table = parseToml(toml);
      if (!certainlyValid(table, schema)) continue;
      const parsed = configFileSchema.safeParse(table);
      expect(parsed.success && parsed.data, toml).toEqual(table);
    }
  });

  it("defers on schema keywords it does not know", () => {
    expect(certainlyValid("x", { type: "string", format: "uri" })).toBe(false);
    expect(certainlyValid({}, { type: "object", "x-tscodex-refined": true })).toBe(false);
    expect(certainlyValid("x", { type: "string" })).toBe(true);
  });
});
