/**
 * modelProvider/list, modelProvider/capabilities/read, configRequirements/read,
 * experimentalFeature/list, and the notices a problematic configuration earns a client
 * (configWarning, warning, deprecationNotice): after initialize for the server's configuration,
 * after thread/start for what a project's adds. Every message checked against Codex's schemas.
 */
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { WireMessage } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { message, turn } from "../support/fake-model-server.js";
import { runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

const NOTICES = new Set(["configWarning", "warning", "deprecationNotice"]);
const notices = (received: WireMessage[]) =>
  received.filter((message) => message.id === undefined && NOTICES.has(message.method ?? ""));

/** Put top-level `lines` at the head of config.toml (before its tables). */
async function prependConfig(lines: string): Promise<void> {
  const { readFile } = await import("node:fs/promises");
  const path = join(h.home, "config.toml");
  await writeFile(path, `${lines}\n${await readFile(path, "utf8")}`);
}

describe("app-server: model providers", () => {
  it("lists the built-in and configured providers and names the default", async () => {
    const client = await h.stdio();
    const list = await client.call("modelProvider/list", {});
    expect(list.defaultProviderId).toBe("fake");
    expect(list.canChangeDefault).toBe(true);
    expect(list.data.map((provider: { id: string }) => provider.id)).toEqual([
      "openai",
      "oss",
      "ollama",
      "lmstudio",
      "fake",
    ]);
    expect(list.data[0]).toMatchObject({
      id: "openai",
      name: "OpenAI",
      settings: { type: "openai" },
      canEdit: false,
    });
    expect(list.data[4]).toEqual({
      id: "fake",
      name: "fake",
      baseUrl: h.model.url,
      settings: { type: "customGateway", auth: { mode: "environmentVariable", envKey: "FAKE_KEY" } },
      canEdit: false,
    });
    expect(list.data[1].settings).toEqual({ type: "customGateway", auth: { mode: "none" } });
    expect(await client.call("modelProvider/capabilities/read", {})).toEqual({
      webSearch: true,
      imageGeneration: false,
    });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("says the default is pinned when -c sets it, and that a chat provider has no web search", async () => {
    await appendFile(
      join(h.home, "config.toml"),
      `\n[model_providers.chatty]\nname = "Chatty"\nbase_url = "${h.model.url}"\nwire_api = "chat"\n`,
    );
    const client = await h.stdio({ args: ["-c", 'model_provider="chatty"'] });
    const list = await client.call("modelProvider/list", {});
    expect(list).toMatchObject({ defaultProviderId: "chatty", canChangeDefault: false });
    expect(await client.call("modelProvider/capabilities/read", {})).toEqual({
      webSearch: false,
      imageGeneration: false,
    });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

describe("app-server: requirements and features", () => {
  it("reports no managed requirements, and each feature flag as configured, in pages", async () => {
    await appendFile(join(h.home, "config.toml"), "\n[features]\nunified_exec = true\nshell_tool = false\n");
    const client = await h.stdio();
    expect(await client.call("configRequirements/read")).toEqual({ requirements: null });
    const all = await client.call("experimentalFeature/list", {});
    expect(all.nextCursor).toBeNull();
    const byName = new Map(all.data.map((feature: { name: string }) => [feature.name, feature]));
    expect(byName.get("unified_exec")).toMatchObject({ enabled: true, defaultEnabled: false, stage: "beta" });
    expect(byName.get("shell_tool")).toMatchObject({ enabled: false, defaultEnabled: true, stage: "stable" });
    expect(byName.get("collab")).toMatchObject({ enabled: false, defaultEnabled: false });
    expect(byName.get("web_search_request")).toMatchObject({ stage: "deprecated" });
    const first = await client.call("experimentalFeature/list", { limit: 3 });
    const rest = await client.call("experimentalFeature/list", { cursor: first.nextCursor });
    expect([...first.data, ...rest.data]).toEqual(all.data);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

describe("app-server: notices about a problematic configuration", () => {
  it("tells a client after initialize what the CLI warns about on stderr", async () => {
    await prependConfig("bogus_key = 1");
    await appendFile(
      join(h.home, "config.toml"),
      '\n[features]\nweb_search_request = true\n\n[model_providers.keyless]\nname = "keyless"\nbase_url = "http://127.0.0.1:9"\nenv_key = "TSCODEX_TEST_UNSET_KEY"\n',
    );
    const client = await h.stdio({ args: ["-c", 'model_provider="keyless"'] });
    await client.waitFor((message) => message.method === "deprecationNotice");
    const initReply = client.received.findIndex((message) => message.id !== undefined);
    const told = notices(client.received);
    // All after the handshake's reply.
    expect(client.received.indexOf(told[0] as WireMessage)).toBeGreaterThan(initReply);
    expect(told.map((message) => message.method)).toEqual(["configWarning", "warning", "deprecationNotice"]);
    expect(told[0]?.params).toEqual({
      summary: "unknown key 'bogus_key' (ignored)",
      details: `${join(h.home, "config.toml")}: unknown key 'bogus_key' (ignored)`,
      path: join(h.home, "config.toml"),
    });
    expect(told[1]?.params).toMatchObject({ threadId: null });
    expect(told[1]?.params.message).toMatch(
      /^no API key for model provider 'keyless': set TSCODEX_TEST_UNSET_KEY/,
    );
    expect(told[2]?.params).toEqual({
      summary: "`features.web_search_request` is deprecated",
      details: 'Set `web_search = "live"` instead (top level of config.toml).',
    });
    // The same problems are not told again when a thread opens.
    await startThread(client, { cwd: h.work });
    expect(notices(client.received)).toHaveLength(3);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("tells nothing for a clean configuration, and warns when a thread opens in an untrusted project", async () => {
    const client = await h.stdio();
    await mkdir(join(h.work, ".codex"), { recursive: true });
    await writeFile(join(h.work, ".codex", "config.toml"), 'model = "gpt-5.2"\n');
    await client.call("model/list", {});
    expect(notices(client.received)).toEqual([]);
    await startThread(client, { cwd: h.work });
    const warning = await client.waitFor((message) => message.method === "configWarning");
    expect(warning.params.summary).toMatch(
      /^untrusted project-local configuration is disabled: .*\.codex\/config\.toml not loaded/,
    );
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("passes on a thread's warnings (a hooks.json that does not load) as `warning` with the thread id", async () => {
    await writeFile(join(h.home, "hooks.json"), "{ not json");
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("done")));
    await runTurn(client, threadId, "hi");
    const warning = await client.waitFor((received) => received.method === "warning");
    expect(warning.params.threadId).toBe(threadId);
    expect(warning.params.message).toMatch(/hooks\.json: invalid JSON: .* \(ignored\)$/);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});
