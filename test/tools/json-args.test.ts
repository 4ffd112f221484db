import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatFloat, rustDebugString } from "../../src/tools/json-args/unexpected.js";
import { ArgumentsError, looseEnum, parseToolArguments, withSerde } from "../../src/tools/json-args.js";
import { readReferenceJson } from "../support/reference.js";

// Schemas shaped like Codex's Rust argument structs.
const planItem = withSerde(
  z.object({ step: z.string(), status: looseEnum(["pending", "in_progress", "completed"]) }),
  { rust: "PlanItemArg" },
);
const updatePlan = withSerde(z.object({ explanation: z.string().optional(), plan: z.array(planItem) }), {
  rust: "UpdatePlanArgs",
});
const shellCommand = z.object({
  command: z.string(),
  workdir: z.string().optional(),
  timeout_ms: withSerde(z.number().int().nonnegative(), { aliases: ["timeout"] }).optional(),
  login: z.boolean().optional(),
  sandbox_permissions: z.string().optional(),
  justification: z.string().optional(),
});
const shell = z.object({ command: z.array(z.string()), workdir: z.string().optional() });
const execCommand = z.object({ cmd: z.string(), yield_time_ms: z.number().int().nonnegative().optional() });
const mcpArguments = z.record(z.string(), z.unknown());
const withExtra = z.object({ command: z.string(), data: z.unknown().optional() });

function failure(text: string, schema: z.ZodType): string {
  try {
    parseToolArguments(text, schema);
  } catch (error) {
    expect(error).toBeInstanceOf(ArgumentsError);
    return (error as ArgumentsError).message;
  }
  throw new Error(`parsed: ${text}`);
}

describe("recorded Codex 0.89 cases", () => {
  const cases: [string, z.ZodType, string][] = [
    ["{}", updatePlan, "missing field `plan` at line 1 column 2"],
    [
      '{"plan":[{"step":"x","status":"done"}]}',
      updatePlan,
      "unknown variant `done`, expected one of `pending`, `in_progress`, `completed` at line 1 column 36",
    ],
    ['{"plan":[{"status":"pending"}]}', updatePlan, "missing field `step` at line 1 column 29"],
    ["not json", updatePlan, "expected ident at line 1 column 2"],
    [
      '{"command":"echo string-not-array"}',
      shell,
      'invalid type: string "echo string-not-array", expected a sequence at line 1 column 34',
    ],
    ["{}", shellCommand, "missing field `command` at line 1 column 2"],
    ["{not json", shellCommand, "key must be a string at line 1 column 2"],
    ['{"command":42}', shellCommand, "invalid type: integer `42`, expected a string at line 1 column 13"],
    ["{}", execCommand, "missing field `cmd` at line 1 column 2"],
    ["{bad", mcpArguments, "key must be a string at line 1 column 2"],
  ];
  it.each(cases)("%s", (text, schema, expected) => {
    expect(failure(text, schema)).toBe(expected);
  });

  it("matches every failed-to-parse output in the reference", () => {
    const schemas: Record<string, z.ZodType> = {
      update_plan: updatePlan,
      shell_command: shellCommand,
      shell,
      exec_command: execCommand,
    };
    const prefix = "failed to parse function arguments: ";
    const entries =
      readReferenceJson<{ tool: string; arguments: string; output: unknown }[]>("tool-outputs/outputs.json");
    const recorded = entries.filter((e) => typeof e.output === "string" && e.output.startsWith(prefix));
    expect(recorded.length).toBeGreaterThan(10);
    for (const entry of recorded) {
      const schema = schemas[entry.tool];
      expect(schema, entry.tool).toBeDefined();
      if (schema) expect(prefix + failure(entry.arguments, schema)).toBe(entry.output);
    }
  });
});

describe("serde_json syntax errors", () => {
  const cases: [string, string][] = [
    ["", "EOF while parsing a value at line 1 column 0"],
    ["  ", "EOF while parsing a value at line 1 column 2"],
    ["nu", "EOF while parsing a value at line 1 column 2"],
    ['{"command":"x"', "EOF while parsing an object at line 1 column 14"],
    ['{"command":"abc', "EOF while parsing a string at line 1 column 15"],
    ['{"command":"x"} x', "trailing characters at line 1 column 17"],
    ['{"command":"x",}', "trailing comma at line 1 column 16"],
    ['{"command" "x"}', "expected `:` at line 1 column 12"],
    ['{"command":"x" "y"}', "expected `,` or `}` at line 1 column 16"],
    ['{"command":"x","login":tru}', "expected ident at line 1 column 27"],
    ['{"command":"x","timeout_ms":01}', "invalid number at line 1 column 30"],
    ['{"command":"x","timeout_ms":1.}', "invalid number at line 1 column 31"],
    ['{"command":"x","timeout_ms":-}', "invalid number at line 1 column 30"],
    ['{"command":"x","timeout_ms":1e}', "invalid number at line 1 column 31"],
    ['{"command":"x","timeout_ms":1e400}', "number out of range at line 1 column 33"],
    ['{"command":"x","timeout_ms":1e9999999999}', "number out of range at line 1 column 40"],
    ['{"command":"a\\qb"}', "invalid escape at line 1 column 15"],
    [
      '{"command":"a\nb"}',
      "control character (\\u0000-\\u001F) found while parsing a string at line 2 column 0",
    ],
    ['{"command":"\\udc00"}', "lone leading surrogate in hex escape at line 1 column 18"],
    ['{"command":"\\ud800"}', "unexpected end of hex escape at line 1 column 19"],
    ['{"command":"\\u12', "EOF while parsing a string at line 1 column 16"],
    ['{"command":,}', "expected value at line 1 column 12"],
  ];
  it.each(cases)("%j", (text, expected) => {
    expect(failure(text, shellCommand)).toBe(expected);
  });

  it("validates ignored values with ignore_value's own rules", () => {
    expect(failure('{"command":"x","extra":[1,]}', shellCommand)).toBe("expected value at line 1 column 27");
    expect(failure('{"command":"x","extra":{"a":1,}}', shellCommand)).toBe(
      "key must be a string at line 1 column 31",
    );
    expect(failure('{"command":"x","extra":[1 2]}', shellCommand)).toBe(
      "expected `,` or `]` at line 1 column 27",
    );
    expect(failure('{"command":"x","extra":"a\nb"}', shellCommand)).toBe(
      "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 25",
    );
  });

  it("stops at serde_json's recursion limit", () => {
    const text = `{"command":"x","data":${"[".repeat(200)}`;
    expect(failure(text, withExtra)).toBe("recursion limit exceeded at line 1 column 149");
  });

  it("counts columns in UTF-8 bytes and lines at \\n", () => {
    expect(failure('{"command":"é","timeout_ms":"5"}', shellCommand)).toBe(
      'invalid type: string "5", expected u64 at line 1 column 32',
    );
    expect(failure('{\n"command": 5\n}', shellCommand)).toBe(
      "invalid type: integer `5`, expected a string at line 2 column 12",
    );
  });
});

describe("serde type errors", () => {
  const cases: [string, z.ZodType, string][] = [
    [
      '{"command":"x","timeout_ms":1.5}',
      shellCommand,
      "invalid type: floating point `1.5`, expected u64 at line 1 column 31",
    ],
    [
      '{"command":"x","timeout_ms":-5}',
      shellCommand,
      "invalid value: integer `-5`, expected u64 at line 1 column 30",
    ],
    [
      '{"command":"x","timeout_ms":1.0e2}',
      shellCommand,
      "invalid type: floating point `100.0`, expected u64 at line 1 column 33",
    ],
    [
      '{"command":"x","timeout_ms":100000000000000000000}',
      shellCommand,
      "invalid type: floating point `1e20`, expected u64 at line 1 column 49",
    ],
    [
      '{"command":"x","timeout_ms":-0}',
      shellCommand,
      "invalid type: floating point `-0.0`, expected u64 at line 1 column 30",
    ],
    [
      '{"command":"x","login":"yes"}',
      shellCommand,
      'invalid type: string "yes", expected a boolean at line 1 column 28',
    ],
    ['{"command":null}', shellCommand, "invalid type: null, expected a string at line 1 column 15"],
    ['{"command":true}', shellCommand, "invalid type: boolean `true`, expected a string at line 1 column 15"],
    ['{"command":[1]}', shellCommand, "invalid type: sequence, expected a string at line 1 column 11"],
    ['{"command":"x"}', shell, 'invalid type: string "x", expected a sequence at line 1 column 14'],
    ['{"plan":{}}', updatePlan, "invalid type: map, expected a sequence at line 1 column 8"],
    [
      '{"plan":["x"]}',
      updatePlan,
      'invalid type: string "x", expected struct PlanItemArg at line 1 column 12',
    ],
    ["42", updatePlan, "invalid type: integer `42`, expected struct UpdatePlanArgs at line 1 column 2"],
    ['{"plan":[],"plan":[]}', updatePlan, "duplicate field `plan` at line 1 column 17"],
    [
      '{"plan":[["a"]]}',
      updatePlan,
      "invalid length 1, expected struct PlanItemArg with 2 elements at line 1 column 14",
    ],
    ['{"plan":[["a","pending","x"]]}', updatePlan, "trailing characters at line 1 column 25"],
    ['{"plan":[{"step":"x","status":1}]}', updatePlan, "expected value at line 1 column 31"],
    ['{"plan":[{"step":"x","status":null}]}', updatePlan, "expected value at line 1 column 31"],
    ['{"plan":[{"step":"a","status":"pending"},]}', updatePlan, "trailing comma at line 1 column 42"],
    [
      '{"plan":[{"step":"a","status":"pending"} {"step":"b","status":"pending"}]}',
      updatePlan,
      "expected `,` or `]` at line 1 column 42",
    ],
    [
      '{"plan":[{"step":"x","status":"done"}],"explanation":3}',
      updatePlan,
      "unknown variant `done`, expected one of `pending`, `in_progress`, `completed` at line 1 column 36",
    ],
  ];
  it.each(cases)("%s", (text, schema, expected) => {
    expect(failure(text, schema)).toBe(expected);
  });

  it("checks integer widths named with rust metadata", () => {
    const schema = z.object({ n: withSerde(z.number().int(), { rust: "i32" }) });
    expect(failure('{"n":3000000000}', schema)).toBe(
      "invalid value: integer `3000000000`, expected i32 at line 1 column 15",
    );
    const i64 = z.object({ n: z.number().int() });
    expect(failure('{"n":-9223372036854775809}', i64)).toBe(
      "invalid type: floating point `-9.223372036854776e18`, expected i64 at line 1 column 25",
    );
  });

  it("rejects unknown fields only for strict objects", () => {
    const strict = z.object({ a: z.string(), b: z.string().optional() }).strict();
    expect(failure('{"a":"x","c":1}', strict)).toBe(
      "unknown field `c`, expected `a` or `b` at line 1 column 12",
    );
  });

  it("places untagged-enum failures where the container ends", () => {
    const schema = z.object({ v: z.union([z.string(), z.array(z.string())]) });
    expect(failure('{"v":5}', schema)).toBe(
      "data did not match any variant of untagged enum Value at line 1 column 7",
    );
  });
});

describe("accepted input", () => {
  it("ignores unknown fields and takes null for optional ones", () => {
    expect(
      parseToolArguments(
        '{"command":"ls","workdir":null,"extra":[1,{"a":[true,null]}],"login":false}',
        shellCommand,
      ),
    ).toEqual({ command: "ls", login: false });
  });

  it("keeps unknown keys for loose objects", () => {
    const schema = z.looseObject({ a: z.string() });
    expect(parseToolArguments('{"a":"x","b":[1,{"c":null}]}', schema)).toEqual({
      a: "x",
      b: [1, { c: null }],
    });
  });

  it("stores null for an absent nullable field", () => {
    const schema = z.object({ a: z.string().nullable() });
    expect(parseToolArguments("{}", schema)).toEqual({ a: null });
  });

  it("applies defaults and aliases", () => {
    const schema = z.object({ a: z.boolean().default(true) });
    expect(parseToolArguments("{}", schema)).toEqual({ a: true });
    expect(parseToolArguments('{"command":"x","timeout":5}', shellCommand)).toEqual({
      command: "x",
      timeout_ms: 5,
    });
  });

  it("reads structs from arrays and unit variants from objects, as serde does", () => {
    expect(
      parseToolArguments('{"plan":[["a","pending"],{"step":"b","status":{"completed":null}}]}', updatePlan),
    ).toEqual({
      plan: [
        { step: "a", status: "pending" },
        { step: "b", status: "completed" },
      ],
    });
  });

  it("decodes escapes and surrogate pairs", () => {
    expect(parseToolArguments('{"command":"\\u00e9\\ud83d\\ude00\\n\\"\\/"}', shellCommand)).toEqual({
      command: 'é😀\n"/',
    });
  });

  it("takes integers and floats for plain numbers", () => {
    const schema = z.object({ x: z.number() });
    expect(parseToolArguments('{"x":1.5}', schema)).toEqual({ x: 1.5 });
    expect(parseToolArguments('{"x":-7}', schema)).toEqual({ x: -7 });
    expect(parseToolArguments('{"x":2.5e-3}', schema)).toEqual({ x: 0.0025 });
  });

  it("does not let a __proto__ key pollute prototypes", () => {
    parseToolArguments(
      '{"__proto__":{"polluted":true},"data":{"__proto__":{"polluted":true}}}',
      withExtra.partial(),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("reports zod-only checks without a position", () => {
    const schema = z.object({ plan: z.array(z.object({ step: z.string().min(1) })) });
    expect(failure('{"plan":[{"step":""}]}', schema)).toMatch(/^plan\[0\]\.step: .+/);
  });

  it("parses long inputs in linear time", () => {
    const big = JSON.stringify({
      command: "x".repeat(2_000_000),
      data: Array.from({ length: 100_000 }, (_, i) => i),
    });
    const started = performance.now();
    expect(parseToolArguments(big, withExtra).command.length).toBe(2_000_000);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("value formatting", () => {
  it("prints floats like ryu", () => {
    expect(formatFloat(1.5)).toBe("1.5");
    expect(formatFloat(100)).toBe("100.0");
    expect(formatFloat(1e15)).toBe("1000000000000000.0");
    expect(formatFloat(1e16)).toBe("1e16");
    expect(formatFloat(0.00001)).toBe("0.00001");
    expect(formatFloat(1e-6)).toBe("1e-6");
    expect(formatFloat(-123.456)).toBe("-123.456");
    expect(formatFloat(1.25e-7)).toBe("1.25e-7");
    expect(formatFloat(0.1 + 0.2)).toBe("0.30000000000000004");
    expect(formatFloat(6.02e23)).toBe("6.02e23");
  });

  it("prints strings like Rust's Debug", () => {
    expect(rustDebugString('a"b\\c\nd\te\r\0')).toBe('"a\\"b\\\\c\\nd\\te\\r\\0"');
    expect(rustDebugString("\u0001\u007f\u00a0\u200b\u0301")).toBe('"\\u{1}\\u{7f}\\u{a0}\\u{200b}\\u{301}"');
    expect(rustDebugString("é日本😀 ")).toBe('"é日本😀 "');
  });
});
