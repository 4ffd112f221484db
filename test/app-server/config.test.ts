/**
 * config/read, config/value/write, config/batchWrite and config/mcpServer/reload against the real
 * server and its config.toml: effective values with their origin and version, edits that keep
 * the file's comments, version conflicts, refused invalid results (the file untouched), and
 * new threads running with what was written.
 */
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { message, turn } from "../support/fake-model-server.js";
import { runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();
const configPath = () => join(h.home, "config.toml");

describe("app-server: configuration", () => {
  it("reads the effective configuration with the file as the origin of each key", async () => {
    const client = await h.stdio();
    const read = await client.call("config/read", { includeLayers: true });
    expect(read.config).toMatchObject({
      model: "gpt-5.2-codex",
      model_provider: "fake",
      model_providers: { fake: { base_url: h.model.url, wire_api: "responses", env_key: "FAKE_KEY" } },
    });
    const origin = read.origins["model_providers.fake.base_url"];
    expect(origin.name).toEqual({ type: "user", file: configPath() });
    expect(origin.version).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Object.keys(read.origins)).toEqual(expect.arrayContaining(["model", "model_provider"]));
    expect(read.layers).toHaveLength(1);
    expect(read.layers[0].config.model_providers.fake.name).toBe("fake");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("writes one value, keeps the file's comments, and new threads use it", async () => {
    await writeFile(configPath(), `# my settings\n${await readFile(configPath(), "utf8")}`);
    const client = await h.stdio();
    const { origins } = await client.call("config/read", {});
    const version = origins.model.version;
    const written = await client.call("config/value/write", {
      keyPath: "model_reasoning_effort",
      value: "high",
      mergeStrategy: "replace",
      expectedVersion: version,
    });
    expect(written).toMatchObject({ status: "ok", filePath: configPath(), overriddenMetadata: null });
    expect(written.version).not.toBe(version);
    const text = await readFile(configPath(), "utf8");
    expect(text.startsWith("# my settings\n")).toBe(true);
    expect(text).toContain('model_reasoning_effort = "high"');
    expect((await client.call("config/read", {})).origins.model.version).toBe(written.version);

    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("thinking hard")));
    await runTurn(client, threadId, "go");
    expect(h.model.requests[0]?.body.reasoning).toMatchObject({ effort: "high" });

    const stale = await client.request("config/value/write", {
      keyPath: "model",
      value: "gpt-5.1",
      mergeStrategy: "replace",
      expectedVersion: version,
    });
    expect(stale.error?.code).toBe(-32600);
    expect(stale.error?.message).toContain("config version conflict");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("batch-writes nested keys, merges tables with upsert, and removes a key given null", async () => {
    await appendFile(configPath(), "\n[tools]\nview_image = false\n");
    const client = await h.stdio();
    await client.call("config/batchWrite", {
      edits: [
        { keyPath: "sandbox_workspace_write.network_access", value: true, mergeStrategy: "replace" },
        { keyPath: "model_providers.fake", value: { name: "Renamed" }, mergeStrategy: "upsert" },
        { keyPath: "tools.view_image", value: null, mergeStrategy: "replace" },
      ],
    });
    const { config } = await client.call("config/read", {});
    expect(config.sandbox_workspace_write).toEqual({ network_access: true });
    expect(config.model_providers.fake).toMatchObject({ name: "Renamed", base_url: h.model.url });
    expect(config.tools?.view_image).toBeUndefined();
  });

  it("refuses a write whose result would not load, and leaves the file as it was", async () => {
    const client = await h.stdio();
    const before = await readFile(configPath(), "utf8");
    const badValue = await client.request("config/value/write", {
      keyPath: "approval_policy",
      value: "sometimes",
      mergeStrategy: "replace",
    });
    expect(badValue.error?.code).toBe(-32602);
    expect(badValue.error?.message).toContain("approval_policy");
    const badProvider = await client.request("config/value/write", {
      keyPath: "model_provider",
      value: "nowhere",
      mergeStrategy: "replace",
    });
    expect(badProvider.error?.code).toBe(-32602);
    expect(badProvider.error?.message).toContain("nowhere");
    const otherFile = await client.request("config/value/write", {
      keyPath: "model",
      value: "x",
      mergeStrategy: "replace",
      filePath: join(h.work, "other.toml"),
    });
    expect(otherFile.error?.code).toBe(-32600);
    expect(await readFile(configPath(), "utf8")).toBe(before);
    // Still serving with the old configuration.
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("ok")));
    expect((await runTurn(client, threadId, "go")).completed.params.turn.status).toBe("completed");
  });

  it("config/mcpServer/reload picks up an edited file for new threads", async () => {
    const client = await h.stdio();
    // At the top: a key after [model_providers.fake] would belong to that table.
    await writeFile(
      configPath(),
      `developer_instructions = "Answer in French."\n${await readFile(configPath(), "utf8")}`,
    );
    // Not yet: the server reads the file at start and on reload.
    const before = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("hello")), turn(message("bonjour")));
    await runTurn(client, before, "hi");
    expect(JSON.stringify(h.model.requests[0]?.input)).not.toContain("Answer in French.");
    expect(await client.call("config/mcpServer/reload")).toEqual({});
    const after = await startThread(client, { cwd: h.work });
    await runTurn(client, after, "hi");
    expect(JSON.stringify(h.model.requests[1]?.input)).toContain("Answer in French.");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});
