import { describe, expect, it } from "vitest";
import { z } from "zod";
import { looseEnum } from "../../src/tools/json-args.js";
import { toParametersSchema } from "../../src/tools/json-schema.js";

/** Replace every description text, so only structure and key order are compared. */
function blankDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(blankDescriptions);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === "description" ? "D" : blankDescriptions(v)]),
  );
}

/** Exact text comparison: key order matters, as it does in the request body. */
function sameJson(actual: unknown, expected: unknown): void {
  expect(JSON.stringify(blankDescriptions(actual))).toBe(JSON.stringify(blankDescriptions(expected)));
}

// From reference tool-specs/089/cfg-default.json (descriptions blanked there too).
const REFERENCE_SHELL_COMMAND = {
  type: "object",
  properties: {
    command: { type: "string", description: "D" },
    justification: { type: "string", description: "D" },
    login: { type: "boolean", description: "D" },
    sandbox_permissions: { type: "string", description: "D" },
    timeout_ms: { type: "number", description: "D" },
    workdir: { type: "string", description: "D" },
  },
  required: ["command"],
  additionalProperties: false,
};

const REFERENCE_UPDATE_PLAN = {
  type: "object",
  properties: {
    explanation: { type: "string" },
    plan: {
      type: "array",
      items: {
        type: "object",
        properties: { status: { type: "string", description: "D" }, step: { type: "string" } },
        required: ["step", "status"],
        additionalProperties: false,
      },
      description: "D",
    },
  },
  required: ["plan"],
  additionalProperties: false,
};

describe("toParametersSchema", () => {
  it("matches the shell_command reference shape", () => {
    const schema = z.object({
      command: z.string().describe("the script"),
      workdir: z.string().optional().describe("where"),
      timeout_ms: z.number().int().nonnegative().describe("limit").optional(),
      login: z.boolean().optional().describe("login shell"),
      sandbox_permissions: looseEnum(["use_default", "require_escalated"]).optional().describe("escalate"),
      justification: z.string().optional().describe("why"),
    });
    sameJson(toParametersSchema(schema), REFERENCE_SHELL_COMMAND);
  });

  it("matches the update_plan reference shape", () => {
    const schema = z.object({
      explanation: z.string().optional(),
      plan: z
        .array(
          z.object({
            step: z.string(),
            status: looseEnum(["pending", "in_progress", "completed"]).describe("s"),
          }),
        )
        .describe("the steps"),
    });
    sameJson(toParametersSchema(schema), REFERENCE_UPDATE_PLAN);
  });

  it("keeps description texts and lists enums unless told not to", () => {
    const schema = z.object({
      mode: z.enum(["slice", "indentation"]).optional().describe("how"),
      hidden: looseEnum(["a", "b"]),
    });
    expect(toParametersSchema(schema)).toEqual({
      type: "object",
      properties: {
        hidden: { type: "string" },
        mode: { type: "string", description: "how", enum: ["slice", "indentation"] },
      },
      required: ["hidden"],
      additionalProperties: false,
    });
  });

  it("omits required when every field is optional and closes nested objects", () => {
    const schema = z.object({
      server: z.string().optional(),
      indentation: z
        .object({ anchor_line: z.number().optional(), max_levels: z.number().int().optional() })
        .optional(),
    });
    sameJson(toParametersSchema(schema), {
      type: "object",
      properties: {
        indentation: {
          type: "object",
          properties: { anchor_line: { type: "number" }, max_levels: { type: "number" } },
          additionalProperties: false,
        },
        server: { type: "string" },
      },
      additionalProperties: false,
    });
  });

  it("leaves loose objects open", () => {
    expect(toParametersSchema(z.looseObject({ a: z.string() }))).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
    });
  });

  it("treats nullable and defaulted fields as not required", () => {
    const schema = z.object({
      a: z.string().nullable(),
      b: z.boolean().default(false),
      c: z.array(z.string()),
    });
    expect(toParametersSchema(schema)).toMatchObject({ required: ["c"] });
  });
});
