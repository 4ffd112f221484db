import { describe, expect, it } from "vitest";
import { sanitizeInputSchema } from "../../src/mcp/schema-sanitizer.js";
import { LOOSE_SCHEMA } from "../support/mcp-fixture-server.js";

describe("MCP input schema sanitizer", () => {
  it("infers missing types, turns integer into number, fills properties and items", () => {
    expect(sanitizeInputSchema(LOOSE_SCHEMA)).toEqual({
      type: "object",
      properties: {
        query: { type: "string", description: "what to look for" },
        limit: { type: "number", minimum: 1 },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        options: { type: "object", properties: { deep: { type: "boolean" } } },
        mode: { type: "number", enum: [1, 2] },
      },
      required: ["query"],
    });
  });

  it("always gives an object schema with properties", () => {
    expect(sanitizeInputSchema(undefined)).toEqual({ type: "object", properties: {} });
    expect(sanitizeInputSchema({ type: "object" })).toEqual({ type: "object", properties: {} });
    expect(sanitizeInputSchema({ properties: { a: true } })).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
    });
  });

  it("walks nested schemas and leaves composed ones untyped", () => {
    const input = {
      type: "object",
      properties: {
        list: { type: "array" },
        ids: { type: ["integer", "null"] },
        either: { anyOf: [{ type: "integer" }, { properties: {} }] },
        map: { type: "object", additionalProperties: { minimum: 0 } },
        closed: { type: "object", properties: {}, additionalProperties: false },
        ref: { $ref: "#/$defs/thing" },
      },
      $defs: { thing: { properties: { n: { type: "integer" } } } },
    };
    const before = JSON.stringify(input);
    expect(sanitizeInputSchema(input)).toEqual({
      type: "object",
      properties: {
        list: { type: "array", items: { type: "string" } },
        ids: { type: ["number", "null"] },
        either: { anyOf: [{ type: "number" }, { type: "object", properties: {} }] },
        map: { type: "object", additionalProperties: { type: "number", minimum: 0 }, properties: {} },
        closed: { type: "object", properties: {}, additionalProperties: false },
        ref: { $ref: "#/$defs/thing" },
      },
      $defs: { thing: { type: "object", properties: { n: { type: "number" } } } },
    });
    expect(JSON.stringify(input)).toBe(before);
  });
});
