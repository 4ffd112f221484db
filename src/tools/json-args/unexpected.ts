/**
 * How serde and serde_json spell values inside messages: Rust `Debug` for strings, ryu's
 * shortest float form, backtick lists of alternatives.
 */

/** A JSON number as serde_json's parser classifies it (`ParserNumber`). */
export type ParsedNumber =
  /** Non-negative integer that fits u64; `digits` is exact. */
  | { kind: "u64"; digits: string }
  /** Negative integer that fits i64; `digits` is the magnitude, exact. */
  | { kind: "i64"; digits: string }
  | { kind: "f64"; value: number };

/** The JS number a parsed JSON number stands for (integers past 2^53 round). */
export function numberValue(n: ParsedNumber): number {
  if (n.kind === "f64") return n.value;
  return n.kind === "u64" ? Number(n.digits) : -Number(n.digits);
}

/** serde `Unexpected` for a number, as serde_json prints it. */
export function unexpectedNumber(n: ParsedNumber): string {
  if (n.kind === "u64") return `integer \`${n.digits}\``;
  if (n.kind === "i64") return `integer \`-${n.digits}\``;
  return `floating point \`${formatFloat(n.value)}\``;
}

/** serde_json `Unexpected::Str`: `string` followed by Rust's Debug form of the text. */
export function unexpectedString(s: string): string {
  return `string ${rustDebugString(s)}`;
}

/** serde `OneOf`: "`a`", "`a` or `b`", "one of `a`, `b`, `c`". */
export function oneOf(names: readonly string[]): string {
  if (names.length === 1) return `\`${names[0]}\``;
  if (names.length === 2) return `\`${names[0]}\` or \`${names[1]}\``;
  return `one of ${names.map((n) => `\`${n}\``).join(", ")}`;
}

/**
 * ryu's `format64` layout over the shortest round-trip digits (which JS computes the same
 * way): plain notation with `.0` for magnitudes in [1e-5, 1e16), exponent form otherwise.
 */
export function formatFloat(f: number): string {
  if (f === 0) return Object.is(f, -0) ? "-0.0" : "0.0";
  const sign = f < 0 ? "-" : "";
  // toExponential() with no argument yields the shortest digits that round-trip.
  const [mantissa = "", exp = "0"] = Math.abs(f).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const length = digits.length;
  const kk = Number(exp) + 1; // value = 0.digits × 10^kk
  const k = kk - length;
  let body: string;
  if (k >= 0 && kk <= 16) body = `${digits}${"0".repeat(k)}.0`;
  else if (kk > 0 && kk <= 16) body = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -5 && kk <= 0) body = `0.${"0".repeat(-kk)}${digits}`;
  else if (length === 1) body = `${digits}e${kk - 1}`;
  else body = `${digits[0]}.${digits.slice(1)}e${kk - 1}`;
  return sign + body;
}

// Characters Rust's `char::escape_debug` prints as `\u{…}`: not printable (control, format,
// surrogate, private use, unassigned, separators other than the ASCII space) or grapheme
// extenders. One class, tested per code point: no backtracking.
const NEEDS_UNICODE_ESCAPE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\p{Grapheme_Extend}]/u;

/** Rust's `<str as Debug>::fmt`: quoted, with `\"`, `\\`, `\n`, `\u{1b}` style escapes. */
export function rustDebugString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0x20 && cp < 0x7f) {
      out += ch === '"' ? '\\"' : ch === "\\" ? "\\\\" : ch;
      continue;
    }
    switch (cp) {
      case 0x09:
        out += "\\t";
        continue;
      case 0x0a:
        out += "\\n";
        continue;
      case 0x0d:
        out += "\\r";
        continue;
      case 0x00:
        out += "\\0";
        continue;
    }
    out += NEEDS_UNICODE_ESCAPE.test(ch) ? `\\u{${cp.toString(16)}}` : ch;
  }
  return `${out}"`;
}
