/**
 * The official Codex TypeScript SDK (`@openai/codex-sdk`) driving tscodex as its `codex`
 * (`codexPathOverride` → a shim that execs the built CLI; `npm run build` first), against the
 * fake model server: the SDK spawns `exec --experimental-json ...` with its own flags, config
 * overrides and environment, and parses our events with its own code.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Codex, type ThreadEvent, type ThreadOptions } from "@openai/codex-sdk";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import {
  customToolCall,
  functionCall,
  hang,
  httpError,
  message,
  type RecordedRequest,
  turn,
  usage,
  webSearchCall,
} from "../support/fake-model-server.js";
import { waitFor, withMarker } from "../support/processes.js";
import { writeCodexShim } from "./sdk-shim.js";

const h = useExecHarness();

/** One transparent pixel. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64",
);

async function sdk(
  extraEnv: Record<string, string> = {},
  options: { baseUrl?: string; apiKey?: string } = {},
) {
  const codexPathOverride = await writeCodexShim(join(h.home, "bin"));
  return new Codex({
    codexPathOverride,
    env: { ...h.libraryEnv(), TSCODEX_HOME: h.home, ...extraEnv },
    ...options,
  });
}

const threadOptions = (more: ThreadOptions = {}): ThreadOptions => ({ workingDirectory: h.work, ...more });

function textOf(request: RecordedRequest | undefined): string {
  return JSON.stringify(request?.input ?? []);
}

describe("the Codex SDK on tscodex", () => {
  it("run(): a command and a message come back as SDK items, with usage and the SDK's originator", async () => {
    h.server.enqueue(
      turn(
        functionCall("shell_command", { command: "echo sdk-ok" }, "call_1"),
        usage({ input: 10, output: 4 }),
      ),
      turn(message("done"), usage({ input: 20, output: 6, reasoning: 3 })),
    );
    const codex = await sdk();
    const thread = codex.startThread(threadOptions({ sandboxMode: "danger-full-access" }));
    const result = await thread.run("say hi");
    expect(result.finalResponse).toBe("done");
    expect(thread.id).toMatch(/^[0-9a-f-]{36}$/);
    const command = result.items.find((item) => item.type === "command_execution");
    expect(command).toMatchObject({ status: "completed", exit_code: 0 });
    expect(command?.type === "command_execution" && command.aggregated_output).toContain("sdk-ok");
    expect(result.usage).toMatchObject({ input_tokens: 30, output_tokens: 10, reasoning_output_tokens: 3 });
    expect(h.server.requests[0]?.headers.originator).toBe("codex_sdk_ts");
    expect(textOf(h.server.requests[0])).toContain("say hi");
  });

  it("runStreamed(): file_change starts and completes; every item is an SDK ThreadItem", async () => {
    const patch = "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch";
    h.server.enqueue(turn(customToolCall("apply_patch", patch, "call_1")), turn(message("patched")));
    const codex = await sdk();
    const thread = codex.startThread(threadOptions({ sandboxMode: "danger-full-access" }));
    const { events } = await thread.runStreamed("add a file");
    const seen: ThreadEvent[] = [];
    for await (const event of events) seen.push(event);
    expect(seen.map((event) => event.type)).toEqual([
      "thread.started",
      "turn.started",
      "item.started",
      "item.completed",
      "item.completed",
      "turn.completed",
    ]);
    expect(seen[2]).toMatchObject({ item: { type: "file_change", status: "in_progress" } });
    expect(seen[3]).toMatchObject({
      item: {
        type: "file_change",
        status: "completed",
        changes: [{ path: join(h.work, "hello.txt"), kind: "add" }],
      },
    });
    const sdkTypes = ["agent_message", "reasoning", "command_execution", "file_change", "mcp_tool_call"];
    for (const event of seen)
      if ("item" in event)
        expect(sdkTypes.concat("web_search", "todo_list", "error")).toContain(event.item.type);
    expect(await readFile(join(h.work, "hello.txt"), "utf8")).toBe("hi\n");
  });

  it("resumeThread() in a second SDK instance continues with the history (and an image); usage is the thread's total", async () => {
    h.server.enqueue(
      turn(message("first answer"), usage({ input: 10, output: 2 })),
      turn(message("second answer"), usage({ input: 30, output: 3 })),
    );
    const first = (await sdk()).startThread(threadOptions());
    await first.run("remember the word pineapple");
    const id = first.id;
    expect(id).not.toBeNull();
    // The SDK puts `--image` after `resume ID`.
    await writeFile(join(h.work, "pixel.png"), PNG);
    const second = (await sdk()).resumeThread(id ?? "", threadOptions());
    const result = await second.run([
      { type: "text", text: "what was the word?" },
      { type: "local_image", path: join(h.work, "pixel.png") },
    ]);
    expect(result.finalResponse).toBe("second answer");
    expect(textOf(h.server.requests[1])).toContain("data:image/png;base64,");
    expect(textOf(h.server.requests[1])).toContain("remember the word pineapple");
    expect(textOf(h.server.requests[1])).toContain("first answer");
    expect(result.usage).toMatchObject({ input_tokens: 40, output_tokens: 5 });
  });

  it("outputSchema is sent as strict json_schema output and images as input_image", async () => {
    h.server.enqueue(turn(message('{"answer":"yes"}')));
    await writeFile(join(h.work, "pixel.png"), PNG);
    const schema = {
      type: "object",
      properties: { answer: { type: "string" } },
      required: ["answer"],
      additionalProperties: false,
    };
    const thread = (await sdk()).startThread(threadOptions());
    const result = await thread.run(
      [
        { type: "text", text: "is it a pixel?" },
        { type: "local_image", path: join(h.work, "pixel.png") },
      ],
      { outputSchema: schema },
    );
    expect(JSON.parse(result.finalResponse)).toEqual({ answer: "yes" });
    const body = h.server.requests[0]?.body as { text?: { format?: Record<string, unknown> } };
    expect(body.text?.format).toMatchObject({ type: "json_schema", strict: true, schema });
    expect(textOf(h.server.requests[0])).toContain("data:image/png;base64,");
  });

  it.each(["read-only", "workspace-write", "danger-full-access"] as const)(
    "sandboxMode %s reaches the thread's permissions",
    async (sandboxMode) => {
      h.server.enqueue(turn(message("ok")));
      const thread = (await sdk()).startThread(threadOptions({ sandboxMode }));
      await thread.run("hi");
      expect(textOf(h.server.requests[0])).toContain(`sandbox_mode=${sandboxMode}`);
    },
  );

  it("additionalDirectories become writable roots", async () => {
    h.server.enqueue(turn(message("ok")));
    const extra = join(h.home, "extra");
    const thread = (await sdk()).startThread(
      threadOptions({ sandboxMode: "workspace-write", additionalDirectories: [extra] }),
    );
    await thread.run("hi");
    expect(textOf(h.server.requests[0])).toContain(`\`${extra}\``);
  });

  it("webSearchMode / webSearchEnabled choose the web_search tool (live, cached, off)", async () => {
    const cases: [ThreadOptions, boolean | null][] = [
      [{ webSearchMode: "live" }, true],
      [{ webSearchMode: "cached" }, false],
      [{ webSearchEnabled: true }, true],
      [{ webSearchMode: "disabled" }, null],
    ];
    for (const [options, live] of cases) {
      h.server.reset();
      h.server.enqueue(turn(webSearchCall("tscodex"), message("found")));
      const result = await (await sdk()).startThread(threadOptions(options)).run("search");
      const tools = (h.server.requests[0]?.body.tools ?? []) as {
        type: string;
        external_web_access?: boolean;
      }[];
      const search = tools.find((tool) => tool.type === "web_search");
      if (live === null) expect(search).toBeUndefined();
      else expect(search?.external_web_access).toBe(live);
      expect(result.items.find((item) => item.type === "web_search")).toMatchObject({
        query: "tscodex",
        action: { type: "search", query: "tscodex" },
      });
    }
  });

  it("baseUrl and apiKey (CODEX_API_KEY) drive the built-in openai provider", async () => {
    await writeFile(join(h.home, "config.toml"), 'model = "gpt-5.2-codex"\n');
    h.server.enqueue(turn(message("via openai_base_url")));
    const codex = await sdk({}, { baseUrl: h.server.url, apiKey: "sk-from-sdk" });
    const result = await codex.startThread(threadOptions()).run("hi");
    expect(result.finalResponse).toBe("via openai_base_url");
    expect(h.server.requests[0]?.headers.authorization).toBe("Bearer sk-from-sdk");
  });

  it("drives a Chat Completions provider too (the bonus Codex no longer has)", async () => {
    await h.writeConfig({ wireApi: "chat" });
    h.server.enqueue(turn(message("from the chat wire")));
    const result = await (await sdk()).startThread(threadOptions()).run("hi");
    expect(result.finalResponse).toBe("from the chat wire");
    expect(h.server.requests[0]?.wire).toBe("chat");
  });

  it("a model 400 is turn.failed: run() rejects with the body, the stream ends with turn.failed", async () => {
    const body = { error: { message: "Invalid request: mock says no", type: "invalid_request_error" } };
    h.server.enqueue(httpError(400, body), httpError(400, body));
    const thread = (await sdk()).startThread(threadOptions());
    await expect(thread.run("hi")).rejects.toThrow(/mock says no/);
    const { events } = await (await sdk()).startThread(threadOptions()).runStreamed("hi");
    const seen: ThreadEvent[] = [];
    await expect(
      (async () => {
        for await (const event of events) seen.push(event);
      })(),
    ).rejects.toThrow(/exited with code 1: .*mock says no/s);
    expect(seen.at(-1)).toMatchObject({
      type: "turn.failed",
      error: { message: expect.stringContaining("mock says no") },
    });
  });

  it("an AbortSignal ends tscodex and the command's whole process tree", async () => {
    const seconds = `${31_000 + Math.floor(Math.random() * 1000)}`;
    // /proc cmdlines separate arguments with NULs: this matches the sleep processes themselves.
    const marker = `sleep\0${seconds}`;
    h.server.enqueue(
      turn(
        functionCall(
          "shell_command",
          { command: `bash -c 'sleep ${seconds} & sleep ${seconds}; wait'` },
          "call_1",
        ),
      ),
      turn(hang()),
    );
    const controller = new AbortController();
    const thread = (await sdk()).startThread(threadOptions({ sandboxMode: "danger-full-access" }));
    const { events } = await thread.runStreamed("run it", { signal: controller.signal });
    const consumed = (async () => {
      for await (const event of events) {
        if (event.type === "item.started" && event.item.type === "command_execution") {
          await waitFor(async () => (await withMarker(marker)).length >= 2);
          controller.abort();
        }
      }
    })();
    await expect(consumed).rejects.toThrow();
    await waitFor(async () => (await withMarker(marker)).length === 0, 10_000);
    // tscodex itself (spawned with `--cd <work>`) is gone too.
    await waitFor(async () => (await withMarker(`--cd\0${h.work}`)).length === 0, 10_000);
  });
});
