/**
 * serde_json's number parsing (without `float_roundtrip` / `arbitrary_precision`): integers
 * that fit u64/i64 stay exact, the rest become f64 through serde_json's own power-of-ten
 * scaling, with its errors at its positions.
 */
import { Code, type Reader } from "./reader.js";
import type { ParsedNumber } from "./unexpected.js";

const U64_MAX = 18446744073709551615n;
const U64_MAX_DIGITS = "18446744073709551615";
const I32_MAX = 2147483647;
const I32_MIN = -2147483648;
// serde_json's POW10 table: exact literals 1e0..1e308.
const POW10: readonly number[] = Array.from({ length: 309 }, (_, i) => Number(`1e${i}`));

export const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** serde_json's u64 significand: a number while exact (the common case), a bigint beyond. */
type Significand = number | bigint;

const significandOf = (digits: string): Significand =>
  digits.length <= 15 ? Number(digits) : BigInt(digits);

/** `significand * 10 + digit`, or null when that passes u64::MAX. */
function appendDigit(significand: Significand, digit: number): Significand | null {
  if (typeof significand === "number") {
    const next = significand * 10 + digit;
    if (next <= Number.MAX_SAFE_INTEGER) return next;
    return appendDigit(BigInt(significand), digit);
  }
  const next = significand * 10n + BigInt(digit);
  return next > U64_MAX ? null : next;
}

/** serde_json `parse_integer`, after an optional `-` was consumed. */
export function parseInteger(r: Reader, positive: boolean): ParsedNumber {
  if (r.index >= r.length) throw r.error(Code.EofWhileParsingValue);
  const first = r.index++;
  const c = r.text.charCodeAt(first);
  if (c === 0x30) {
    if (isDigit(r.peek())) throw r.peekError(Code.InvalidNumber);
    return parseNumber(r, positive, "0");
  }
  if (c < 0x31 || c > 0x39) throw r.errorAfterByteOf(first, Code.InvalidNumber);
  let i = r.index;
  while (i < r.length && isDigit(r.text.charCodeAt(i))) i++;
  const digits = r.text.slice(first, i);
  if (digits.length < 20 || (digits.length === 20 && digits <= U64_MAX_DIGITS)) {
    r.index = i;
    return parseNumber(r, positive, digits);
  }
  // Past u64: serde_json keeps the longest prefix that fits and counts the rest as exponent.
  const keep = digits.slice(0, 20) <= U64_MAX_DIGITS ? 20 : 19;
  r.index = first + keep;
  return { kind: "f64", value: parseLongInteger(r, positive, BigInt(digits.slice(0, keep))) };
}

function parseNumber(r: Reader, positive: boolean, digits: string): ParsedNumber {
  const c = r.peek();
  if (c === 0x2e) return { kind: "f64", value: parseDecimal(r, positive, significandOf(digits), 0) };
  if (c === 0x65 || c === 0x45) {
    return { kind: "f64", value: parseExponent(r, positive, significandOf(digits), 0) };
  }
  if (positive) return { kind: "u64", digits };
  // `-0` and magnitudes past i64::MIN become floats, as in serde_json.
  if (digits === "0") return { kind: "f64", value: -0 };
  if (digits.length > 19 || (digits.length === 19 && digits > "9223372036854775808")) {
    return { kind: "f64", value: -Number(BigInt(digits)) };
  }
  return { kind: "i64", digits };
}

function parseLongInteger(r: Reader, positive: boolean, significand: Significand): number {
  let exponent = 0;
  for (;;) {
    const c = r.peek();
    if (isDigit(c)) {
      r.eat();
      exponent++;
    } else if (c === 0x2e) return parseDecimal(r, positive, significand, exponent);
    else if (c === 0x65 || c === 0x45) return parseExponent(r, positive, significand, exponent);
    else return f64FromParts(r, positive, significand, exponent);
  }
}

function parseDecimal(
  r: Reader,
  positive: boolean,
  significand: Significand,
  exponentBefore: number,
): number {
  r.eat();
  let sig = significand;
  let exponentAfter = 0;
  for (let c = r.peek(); isDigit(c); c = r.peek()) {
    const next = appendDigit(sig, c - 0x30);
    if (next === null) {
      // Further digits cannot be represented: skip them.
      while (isDigit(r.peek())) r.eat();
      const exponent = exponentBefore + exponentAfter;
      const e = r.peek();
      if (e === 0x65 || e === 0x45) return parseExponent(r, positive, sig, exponent);
      return f64FromParts(r, positive, sig, exponent);
    }
    r.eat();
    sig = next;
    exponentAfter--;
  }
  if (exponentAfter === 0) {
    throw r.peekError(r.index < r.length ? Code.InvalidNumber : Code.EofWhileParsingValue);
  }
  const exponent = exponentBefore + exponentAfter;
  const e = r.peek();
  if (e === 0x65 || e === 0x45) return parseExponent(r, positive, sig, exponent);
  return f64FromParts(r, positive, sig, exponent);
}

function parseExponent(
  r: Reader,
  positive: boolean,
  significand: Significand,
  startingExponent: number,
): number {
  r.eat();
  let positiveExponent = true;
  const sign = r.peek();
  if (sign === 0x2b) r.eat();
  else if (sign === 0x2d) {
    r.eat();
    positiveExponent = false;
  }
  if (r.index >= r.length) throw r.error(Code.EofWhileParsingValue);
  const first = r.index++;
  const c = r.text.charCodeAt(first);
  if (!isDigit(c)) throw r.errorAfterByteOf(first, Code.InvalidNumber);
  let exponent = c - 0x30;
  for (let d = r.peek(); isDigit(d); d = r.peek()) {
    r.eat();
    const next = exponent * 10 + (d - 0x30);
    if (next > I32_MAX) {
      // Exponent overflow: infinity is an error, zero stays zero.
      if (Number(significand) !== 0 && positiveExponent) throw r.error(Code.NumberOutOfRange);
      while (isDigit(r.peek())) r.eat();
      return positive ? 0 : -0;
    }
    exponent = next;
  }
  const total = positiveExponent ? startingExponent + exponent : startingExponent - exponent;
  return f64FromParts(r, positive, significand, Math.min(I32_MAX, Math.max(I32_MIN, total)));
}

/** serde_json's (non-`float_roundtrip`) scaling by powers of ten. */
function f64FromParts(r: Reader, positive: boolean, significand: Significand, exponent: number): number {
  let f = Number(significand);
  let exp = exponent;
  for (;;) {
    const pow = POW10[Math.abs(exp)];
    if (pow !== undefined) {
      if (exp >= 0) {
        f *= pow;
        if (!Number.isFinite(f)) throw r.error(Code.NumberOutOfRange);
      } else f /= pow;
      break;
    }
    if (f === 0) break;
    if (exp >= 0) throw r.error(Code.NumberOutOfRange);
    f /= 1e308;
    exp += 308;
  }
  return positive ? f : -f;
}
