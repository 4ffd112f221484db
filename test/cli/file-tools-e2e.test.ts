/**
 * The file, image and search tools end to end: the built CLI (`tscodex exec`) against the fake
 * model server. Expected outputs are Codex 0.89's (reference tool-outputs/outputs.json and
 * request-examples/089-history-with-image-request.json), with the oracle's paths replaced.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { ResponseItem } from "../../src/protocol/items.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn, webSearchCall } from "../support/fake-model-server.js";
import { BASE_TOOLS, MCP_RESOURCE_TOOLS } from "../support/tool-names.js";
import { buildExpTools } from "../tools/file-tools-support.js";

const TINY_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEElEQVR4nGP4z8AARww4OQD1MQv1NXv7ggAAAABJRU5ErkJggg==";

const h = useExecHarness({ execArgs: ["--full-auto"] });
beforeEach(async () => {
  await buildExpTools(h.work);
  await writeFile(join(h.work, "img.png"), Buffer.from(TINY_PNG, "base64"));
  await writeFile(join(h.work, "notimage.txt"), "plain text\n");
});

describe("tscodex exec: read_file, list_dir, grep_files", () => {
  it("offers them with --enable file_tools and answers as Codex does", async () => {
    const at = (path: string) => join(h.work, path);
    h.server.enqueue(
      turn(
        functionCall("read_file", { file_path: at("five.txt"), offset: 2, limit: 2 }, "call_slice"),
        functionCall(
          "read_file",
          { file_path: at("src/main.py"), mode: "indentation", offset: 7 },
          "call_block",
        ),
        functionCall("list_dir", { dir_path: at("src"), depth: 3, offset: 2, limit: 3 }, "call_list"),
        functionCall("grep_files", { pattern: "needle" }, "call_grep"),
        functionCall("read_file", { file_path: "five.txt" }, "call_relative"),
        functionCall("grep_files", { pattern: "zzz_nomatch" }, "call_none"),
      ),
      turn(message("done")),
    );
    const result = await h.exec(["--enable", "file_tools", "look around"]);
    expect(result.code, result.stderr).toBe(0);
    expect(h.server.requests[0]?.toolNames).toEqual([
      ...BASE_TOOLS,
      "grep_files",
      "read_file",
      "list_dir",
      "view_image",
    ]);
    expect(h.outputs()).toEqual({
      call_slice: "L2: line2\nL3: line3",
      call_block:
        "L3: # helper docs\nL4: def outer():\nL5:     x = 1\nL6:     def inner():\nL7:         return x\nL8:     return inner()\nL9: \nL10: def other():\nL11:     pass",
      call_list: `Absolute path: ${at("src")}\nnested/\n  a.rs\n  deeper/\nMore than 3 entries found`,
      call_grep: `${at("src/nested/a.rs")}\n${at("src/nested/deeper/b.ts")}`,
      call_relative: "file_path must be an absolute path",
      call_none: "No matches found.",
    });
  });

  it("[tools] config turns them on one by one", async () => {
    await h.writeConfig({ extra: "[tools]\nlist_dir = true\n" });
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["hi"])).code).toBe(0);
    expect(h.server.requests[0]?.toolNames).toEqual([...BASE_TOOLS, "list_dir", "view_image"]);
  });
});

describe("tscodex exec: view_image", () => {
  it("attaches the image to the next request, after the outputs, as the reference shows", async () => {
    h.server.enqueue(
      turn(functionCall("view_image", { path: "img.png" }, "call_8")),
      turn(functionCall("view_image", { path: "notimage.txt" }, "call_12")),
      turn(functionCall("view_image", { path: "." }, "call_11")),
      turn(message("seen")),
    );
    const result = await h.exec(["look at it"]);
    expect(result.code, result.stderr).toBe(0);
    expect(h.server.requests[0]?.toolNames.at(-1)).toBe("view_image");
    const tail = (index: number, count: number): ResponseItem[] =>
      h.server.requests[index]?.input.slice(-count) ?? [];
    expect(tail(1, 3)).toEqual([
      { type: "function_call", name: "view_image", arguments: '{"path":"img.png"}', call_id: "call_8" },
      { type: "function_call_output", call_id: "call_8", output: "attached local image path" },
      {
        type: "message",
        role: "user",
        content: [{ type: "input_image", image_url: `data:image/png;base64,${TINY_PNG}` }],
      },
    ]);
    expect(tail(2, 2)).toEqual([
      { type: "function_call_output", call_id: "call_12", output: "attached local image path" },
      {
        type: "message",
        role: "user",
        content: [
          {
            type: "input_text",
            text: `Codex could not read the local image at \`${h.work}/notimage.txt\`: unsupported MIME type \`text/plain\``,
          },
        ],
      },
    ]);
    expect(tail(3, 1)).toEqual([
      {
        type: "function_call_output",
        call_id: "call_11",
        output: `image path \`${h.work}/.\` is not a file`,
      },
    ]);
  });

  it("is not offered with [tools] view_image = false", async () => {
    await h.writeConfig({ extra: "[tools]\nview_image = false\n" });
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["hi"])).code).toBe(0);
    expect(h.server.requests[0]?.toolNames).toEqual(BASE_TOOLS);
  });
});

describe("tscodex exec: web_search", () => {
  it("sends the native tool after apply_patch and reports the provider's searches", async () => {
    h.server.enqueue(turn(webSearchCall("weather in Paris"), message("Sunny.")));
    const result = await h.exec(["--json", "--enable", "web_search_request", "weather?"]);
    expect(result.code, result.stderr).toBe(0);
    const tools = h.server.requests[0]?.body.tools as Record<string, unknown>[];
    expect(h.server.requests[0]?.toolNames).toEqual([...BASE_TOOLS, "web_search", "view_image"]);
    expect(tools[6]).toEqual({ type: "web_search", external_web_access: true });
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; item?: Record<string, unknown> });
    expect(events.filter((event) => event.type === "item.completed").map((event) => event.item)).toEqual([
      {
        id: "item_0",
        type: "web_search",
        query: "weather in Paris",
        action: { type: "search", query: "weather in Paris" },
      },
      { id: "item_1", type: "agent_message", text: "Sunny." },
    ]);
  });

  it("web_search_cached asks for cached results; the chat wire gets no web_search", async () => {
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["--enable", "web_search_cached", "hi"])).code).toBe(0);
    const tools = h.server.requests[0]?.body.tools as Record<string, unknown>[];
    expect(tools.find((tool) => tool.type === "web_search")).toEqual({
      type: "web_search",
      external_web_access: false,
    });

    await h.writeConfig({ wireApi: "chat" });
    h.server.reset();
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["--enable", "web_search_request", "hi"])).code).toBe(0);
    expect(h.server.requests[0]?.toolNames).not.toContain("web_search");
  });
});

describe("tscodex exec: --enable / --disable", () => {
  it("--enable unified_exec swaps shell_command for exec_command + write_stdin", async () => {
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["--enable", "unified_exec", "hi"]);
    expect(result.code, result.stderr).toBe(0);
    expect(h.server.requests[0]?.toolNames).toEqual([
      "exec_command",
      "write_stdin",
      ...MCP_RESOURCE_TOOLS,
      "update_plan",
      "apply_patch",
      "view_image",
    ]);
  });

  it("--disable shell_tool leaves no shell tool; --disable wins over an earlier -c", async () => {
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["-c", "features.shell_tool=true", "--disable", "shell_tool", "hi"]);
    expect(result.code, result.stderr).toBe(0);
    expect(h.server.requests[0]?.toolNames).toEqual([
      ...MCP_RESOURCE_TOOLS,
      "update_plan",
      "apply_patch",
      "view_image",
    ]);
  });

  it("rejects a malformed feature name", async () => {
    const result = await h.exec(["--enable", "a.b", "hi"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("invalid feature name 'a.b'");
  });
});
