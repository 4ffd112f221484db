/** Rendering of tools/call results for the model: reference tool-outputs (run mcp-tools). */
import { describe, expect, it } from "vitest";
import { callToolResultSchema } from "../../src/mcp/call-result.js";
import { describeMcpError, renderCallResult, sortedJson } from "../../src/mcp/render.js";

const render = (raw: unknown) => renderCallResult(callToolResultSchema.parse(raw));

describe("MCP results for the model", () => {
  it("text content: the content array as JSON, keys sorted", () => {
    expect(render({ content: [{ type: "text", text: "echo: hello" }] })).toEqual({
      content: '[{"text":"echo: hello","type":"text"}]',
      success: true,
    });
    expect(sortedJson({ b: [{ z: 1, a: 2 }], a: null })).toBe('{"a":null,"b":[{"a":2,"z":1}]}');
  });

  it("structuredContent: only its JSON", () => {
    expect(render({ content: [{ type: "text", text: "x" }], structuredContent: { ok: true } }).content).toBe(
      '{"ok":true}',
    );
  });

  it("images: an input_text / input_image array; other blocks as JSON text", () => {
    expect(
      render({
        content: [
          { type: "text", text: "an image:" },
          { type: "image", data: "AAAA", mimeType: "image/gif" },
          { type: "resource_link", uri: "x://y", name: "y" },
        ],
      }).content,
    ).toEqual([
      { type: "input_text", text: "an image:" },
      { type: "input_image", image_url: "data:image/gif;base64,AAAA" },
      { type: "input_text", text: '{"name":"y","type":"resource_link","uri":"x://y"}' },
    ]);
  });

  it("isError: a marker before the content (Codex shows none)", () => {
    expect(render({ content: [{ type: "text", text: "it failed" }], isError: true })).toEqual({
      content: 'MCP tool reported an error:\n[{"text":"it failed","type":"text"}]',
      success: false,
    });
    const withImage = render({
      content: [{ type: "image", data: "AA", mimeType: "image/png" }],
      isError: true,
    });
    expect(withImage.content).toEqual([
      { type: "input_text", text: "MCP tool reported an error:" },
      { type: "input_image", image_url: "data:image/png;base64,AA" },
    ]);
  });

  it("rejects a result that is not one, and tolerates missing content", () => {
    expect(callToolResultSchema.safeParse({ content: "nope" }).success).toBe(false);
    expect(render({}).content).toBe("[]");
  });

  it("errors: one line, JSON-RPC ones as `Mcp error: {code}: {message}`", () => {
    const rpc = Object.assign(new Error("MCP error -32000: boom\n  at somewhere"), { code: -32000 });
    expect(describeMcpError(rpc)).toBe("Mcp error: -32000: boom at somewhere");
    expect(describeMcpError(new Error("spawn nope ENOENT"))).toBe("spawn nope ENOENT");
    expect(describeMcpError("plain")).toBe("plain");
  });
});
