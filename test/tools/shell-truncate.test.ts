import { describe, expect, it } from "vitest";
import type { TruncationPolicy } from "../../src/protocol/policy.js";
import { formatFreeformExecOutput, formatLegacyExecOutput } from "../../src/tools/exec-output.js";
import {
  capturedFromString,
  countLines,
  formattedTruncateText,
  prependText,
  truncateText,
} from "../../src/tools/truncate.js";

const TOKENS: TruncationPolicy = { mode: "tokens", limit: 10_000 };
const BYTES: TruncationPolicy = { mode: "bytes", limit: 10_000 };

const fill = (char: string, count: number): string => char.repeat(count);
/** `seq 1 n`. */
const seq = (n: number): string => {
  const lines: string[] = [];
  for (let i = 1; i <= n; i++) lines.push(String(i));
  return `${lines.join("\n")}\n`;
};
/** python3 -c "print('\u00e9'*30000)". */
const EACUTE = `${"é".repeat(30_000)}\n`;
/** Codex 0.89 keeps only the first 1 MiB of output (ASCII here, so a slice is exact). */
const codexCapture = (text: string): string => text.slice(0, 1024 * 1024);

interface ReferenceCase {
  id: string;
  policy: TruncationPolicy;
  input: string;
  chars: number;
  bytes: number;
  marker: string | null;
  /** First and last characters of the recorded output, and the text around the marker. */
  head: string;
  tail: string;
  context: string | null;
}

/** The truncated shell_command outputs of reference/tool-outputs/outputs.json (0.89). */
const REFERENCE: ReferenceCase[] = [
  {
    id: "out-shell-dfa/call_4",
    policy: TOKENS,
    input: codexCapture(seq(200000)),
    chars: 40094,
    bytes: 40098,
    marker: "…252144 tokens truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nTotal output lines: 165669\nOutput:\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n",
    tail: "52\n165653\n165654\n165655\n165656\n165657\n165658\n165659\n165660\n165661\n165662\n165663\n165664\n165665\n165666\n165667\n165668\n16566",
    context:
      "06\n4207\n4208\n4209\n4210\n4211\n4212\n4213\n4214\n4215\n4216\n4217\n4218\n4219\n4220\n4221\n42…252144 tokens truncated…12\n162813\n162814\n162815\n162816\n162817\n162818\n162819\n162820\n162821\n162822\n162823\n",
  },
  {
    id: "out-shell-dfa/call_12",
    policy: TOKENS,
    input: fill("x", 30000),
    chars: 30042,
    bytes: 30042,
    marker: null,
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    tail: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    context: null,
  },
  {
    id: "trunc-bytes-gpt52/call_1",
    policy: BYTES,
    input: fill("a", 39990),
    chars: 10065,
    bytes: 10069,
    marker: "…29990 chars truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    tail: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    context:
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…29990 chars truncated…aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
  },
  {
    id: "trunc-bytes-gpt52/call_2",
    policy: BYTES,
    input: fill("b", 40000),
    chars: 10065,
    bytes: 10069,
    marker: "…30000 chars truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
    tail: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
    context:
      "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb…30000 chars truncated…bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
  },
  {
    id: "trunc-bytes-gpt52/call_3",
    policy: BYTES,
    input: fill("c", 40001),
    chars: 10065,
    bytes: 10069,
    marker: "…30001 chars truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\ncccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
    tail: "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
    context:
      "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc…30001 chars truncated…cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
  },
  {
    id: "trunc-bytes-gpt52/call_4",
    policy: BYTES,
    input: fill("d", 40100),
    chars: 10065,
    bytes: 10069,
    marker: "…30100 chars truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\ndddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd",
    tail: "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd",
    context:
      "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd…30100 chars truncated…dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd",
  },
  {
    id: "trunc-bytes-gpt52/call_5",
    policy: BYTES,
    input: seq(20000),
    chars: 10091,
    bytes: 10095,
    marker: "…98894 chars truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nTotal output lines: 20000\nOutput:\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n2",
    tail: "19981\n19982\n19983\n19984\n19985\n19986\n19987\n19988\n19989\n19990\n19991\n19992\n19993\n19994\n19995\n19996\n19997\n19998\n19999\n20000\n",
    context:
      "06\n1207\n1208\n1209\n1210\n1211\n1212\n1213\n1214\n1215\n1216\n1217\n1218\n1219\n1220\n1221\n12…98894 chars truncated…7\n19168\n19169\n19170\n19171\n19172\n19173\n19174\n19175\n19176\n19177\n19178\n19179\n19180\n",
  },
  {
    id: "trunc-bytes-gpt52/call_6",
    policy: BYTES,
    input: fill("e", 9990),
    chars: 10032,
    bytes: 10032,
    marker: null,
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\neeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
    tail: "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
    context: null,
  },
  {
    id: "trunc-bytes-gpt52/call_7",
    policy: BYTES,
    input: fill("f", 10001),
    chars: 10061,
    bytes: 10065,
    marker: "…1 chars truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\nffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    tail: "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    context:
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff…1 chars truncated…ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
  },
  {
    id: "trunc-bytes-gpt52/call_8",
    policy: BYTES,
    input: fill("g", 12000),
    chars: 10064,
    bytes: 10068,
    marker: "…2000 chars truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\ngggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg",
    tail: "gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg",
    context:
      "gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg…2000 chars truncated…gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg",
  },
  {
    id: "trunc-bytes-gpt52/call_10",
    policy: BYTES,
    input: EACUTE,
    chars: 5065,
    bytes: 10068,
    marker: "…25001 chars truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\néééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé",
    tail: "ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\n",
    context:
      "éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé…25001 chars truncated…éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé",
  },
  {
    id: "trunc-tokens/call_1",
    policy: TOKENS,
    input: fill("a", 39990),
    chars: 40032,
    bytes: 40032,
    marker: null,
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    tail: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    context: null,
  },
  {
    id: "trunc-tokens/call_2",
    policy: TOKENS,
    input: fill("b", 40000),
    chars: 40042,
    bytes: 40042,
    marker: null,
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
    tail: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
    context: null,
  },
  {
    id: "trunc-tokens/call_3",
    policy: TOKENS,
    input: fill("c", 40001),
    chars: 40062,
    bytes: 40066,
    marker: "…1 tokens truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\ncccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
    tail: "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
    context:
      "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc…1 tokens truncated…cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
  },
  {
    id: "trunc-tokens/call_4",
    policy: TOKENS,
    input: fill("d", 40100),
    chars: 40063,
    bytes: 40067,
    marker: "…25 tokens truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\ndddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd",
    tail: "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd",
    context:
      "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd…25 tokens truncated…dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd",
  },
  {
    id: "trunc-tokens/call_5",
    policy: TOKENS,
    input: seq(20000),
    chars: 40092,
    bytes: 40096,
    marker: "…17224 tokens truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nTotal output lines: 20000\nOutput:\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n2",
    tail: "19981\n19982\n19983\n19984\n19985\n19986\n19987\n19988\n19989\n19990\n19991\n19992\n19993\n19994\n19995\n19996\n19997\n19998\n19999\n20000\n",
    context:
      "06\n4207\n4208\n4209\n4210\n4211\n4212\n4213\n4214\n4215\n4216\n4217\n4218\n4219\n4220\n4221\n42…17224 tokens truncated…7\n16668\n16669\n16670\n16671\n16672\n16673\n16674\n16675\n16676\n16677\n16678\n16679\n16680\n",
  },
  {
    id: "trunc-tokens/call_6",
    policy: TOKENS,
    input: fill("e", 9990),
    chars: 10032,
    bytes: 10032,
    marker: null,
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\neeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
    tail: "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
    context: null,
  },
  {
    id: "trunc-tokens/call_7",
    policy: TOKENS,
    input: fill("f", 10001),
    chars: 10043,
    bytes: 10043,
    marker: null,
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\nffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    tail: "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    context: null,
  },
  {
    id: "trunc-tokens/call_8",
    policy: TOKENS,
    input: fill("g", 12000),
    chars: 12042,
    bytes: 12042,
    marker: null,
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\ngggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg",
    tail: "gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg",
    context: null,
  },
  {
    id: "trunc-tokens/call_10",
    policy: TOKENS,
    input: EACUTE,
    chars: 20066,
    bytes: 40072,
    marker: "…5001 tokens truncated…",
    head: "Exit code: 0\nWall time: 0 seconds\nOutput:\néééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé",
    tail: "ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\n",
    context:
      "éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé…5001 tokens truncated…éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé",
  },
];

describe("truncation against the reference outputs", () => {
  for (const c of REFERENCE) {
    it(`${c.id}: ${c.marker ?? "not truncated"}`, () => {
      const text = formatFreeformExecOutput(
        { exitCode: 0, durationMs: 0, timedOut: false, output: c.input },
        c.policy,
      );
      expect(text.startsWith(c.head)).toBe(true);
      expect(text.endsWith(c.tail)).toBe(true);
      if (c.marker !== null && c.context !== null) {
        expect(text).toContain(c.context);
        expect(text.split(c.marker)).toHaveLength(2);
      } else {
        expect(text).not.toMatch(/truncated…/);
      }
      expect(text.length).toBe(c.chars);
      // é×30000 in tokens mode: the reference records 2 bytes more than its characters allow
      // (20066 characters of é, newline, ASCII and the marker make 40070 bytes, not 40072).
      const bytes = Buffer.byteLength(text);
      if (c.id === "trunc-tokens/call_10") expect(bytes).toBe(40_070);
      else expect(bytes).toBe(c.bytes);
    });
  }
});

describe("legacy shell JSON under the bytes policy (out-shell-array/call_4, seq 1 200000)", () => {
  it("is truncated once by the tool and once more by history (policy × 1.2 on the JSON)", () => {
    const json = formatLegacyExecOutput(
      { exitCode: 0, durationMs: 0, timedOut: false, output: codexCapture(seq(200_000)) },
      BYTES,
    );
    expect(json.startsWith('{"output":"Total output lines: 165669\\n\\n1\\n2\\n3\\n')).toBe(true);
    expect(json.split("chars truncated…")).toHaveLength(2);
    // The second cut belongs to the history layer; reproduce it to check the whole chain.
    const { text } = truncateText(json, { mode: "bytes", limit: 12_000 });
    expect(
      text.startsWith('{"output":"Total output lines: 165669\\n\\n1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n'),
    ).toBe(true);
    expect(
      text.endsWith('\\n165667\\n165668\\n16566","metadata":{"exit_code":0,"duration_seconds":0.0}}'),
    ).toBe(true);
    expect(text).toContain(
      "65\\n1166\\n1167\\n1168\\n1169\\n1170\\n1171\\n1172\\n1173\\n1174\\n1175\\n1176\\n1177\\n1178…57 chars truncated…188\\n1189\\n1190\\n1191\\n1192\\n1193\\n1194\\n1195\\n1196\\n1197\\n1198\\n1199\\n1200\\n120",
    );
    expect(text.length).toBe(12_016);
    expect(Buffer.byteLength(text)).toBe(12_024);
  });
});

describe("whole output, not the first MiB (deliberate difference, DESIGN.md)", () => {
  it("seq 1 200000 shows all lines counted and the real end", () => {
    const text = formatFreeformExecOutput(
      { exitCode: 0, durationMs: 0, timedOut: false, output: seq(200_000) },
      TOKENS,
    );
    const total = Buffer.byteLength(seq(200_000));
    expect(
      text.startsWith("Exit code: 0\nWall time: 0 seconds\nTotal output lines: 200000\nOutput:\n1\n2\n3\n"),
    ).toBe(true);
    expect(text).toContain(`…${Math.ceil(total / 4) - 10_000} tokens truncated…`);
    expect(text.endsWith("199998\n199999\n200000\n")).toBe(true);
    expect(text.length).toBe(
      "Exit code: 0\nWall time: 0 seconds\nTotal output lines: 200000\nOutput:\n".length +
        40_000 +
        "…312224 tokens truncated…".length,
    );
  });
});

describe("truncateText", () => {
  it("passes the budget exactly and cuts one byte over", () => {
    expect(truncateText(fill("b", 40_000), TOKENS)).toEqual({ text: fill("b", 40_000), truncated: false });
    expect(truncateText(fill("c", 40_001), TOKENS).text).toBe(
      `${fill("c", 20_000)}…1 tokens truncated…${fill("c", 20_000)}`,
    );
    expect(truncateText(fill("b", 10_000), BYTES).truncated).toBe(false);
    expect(truncateText(fill("f", 10_001), BYTES).text).toBe(
      `${fill("f", 5000)}…1 chars truncated…${fill("f", 5000)}`,
    );
  });

  it("never splits a character", () => {
    const text = `a${"😀".repeat(5000)}`;
    const { text: cut } = truncateText(text, { mode: "bytes", limit: 100 });
    expect(cut).toBe(`a${"😀".repeat(12)}…${5000 - 24} chars truncated…${"😀".repeat(12)}`);
    expect(cut).not.toContain("\ufffd");
  });

  it("keeps empty text empty and a zero budget as the marker alone", () => {
    expect(truncateText("", TOKENS).text).toBe("");
    expect(truncateText("abcdef", { mode: "bytes", limit: 0 }).text).toBe("…6 chars truncated…");
  });

  it("formattedTruncateText adds the line count only when cut", () => {
    expect(formattedTruncateText("a\nb\n", BYTES)).toBe("a\nb\n");
    expect(formattedTruncateText(seq(20_000), BYTES).startsWith("Total output lines: 20000\n\n1\n2\n")).toBe(
      true,
    );
  });
});

describe("line counting and prefixes", () => {
  it("counts lines as Rust's str::lines does", () => {
    expect(countLines("")).toBe(0);
    expect(countLines("a")).toBe(1);
    expect(countLines("a\n")).toBe(1);
    expect(countLines("a\nb")).toBe(2);
    expect(countLines("\n\n")).toBe(2);
  });

  it("prependText keeps the totals of the joined text", () => {
    for (const [prefix, body] of [
      ["timed out\n", "before\n"],
      ["timed out\n", ""],
      ["x", "y\nz"],
      ["é\n", "😀"],
    ] as const) {
      expect(prependText(prefix, capturedFromString(body))).toEqual(capturedFromString(prefix + body));
    }
  });
});
