/**
 * The typed half of serde_json: `Deserializer::deserialize_*` driven by a Shape, with the
 * visitors `#[derive(Deserialize)]` generates (structs from maps or sequences, Option,
 * Vec, unit enums, integers). It fails where serde fails, in document order, with the same
 * message and position, and otherwise yields a plain value for zod to finish.
 */
import { z } from "zod";
import { ignoreValue } from "./ignore.js";
import { parseInteger } from "./numbers.js";
import { Code, custom, EOF, invalidType, Reader, type SerdeError } from "./reader.js";
import type { Shape, StructShape } from "./shape.js";
import { numberValue, oneOf, type ParsedNumber, unexpectedNumber, unexpectedString } from "./unexpected.js";

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_SEQ = 0x5b;
const CLOSE_SEQ = 0x5d;
const OPEN_MAP = 0x7b;
const CLOSE_MAP = 0x7d;
const MINUS = 0x2d;

/** `serde_json::from_str::<T>`: the value, then only whitespace. Throws SerdeError. */
export function deserializeRoot(text: string, shape: Shape): unknown {
  const r = new Reader(text);
  const value = deserialize(r, shape);
  r.end();
  return value;
}

function deserialize(r: Reader, shape: Shape): unknown {
  switch (shape.kind) {
    case "string":
      return deserializeStr(r, "a string");
    case "bool":
      return deserializeBool(r);
    case "number":
      return deserializeNumber(r, shape.rust, shape.range);
    case "enum":
      return deserializeEnum(r, shape.variants);
    case "option":
      return deserializeOption(r, shape.inner, shape.none);
    case "seq":
      return deserializeSeq(r, shape.item);
    case "map":
      return deserializeMap(r, shape.keyVariants, shape.value);
    case "struct":
      return deserializeStruct(r, shape);
    case "unit":
      return deserializeUnit(r);
    case "any":
      return deserializeAny(r);
    case "untagged": {
      // Serde buffers the value, then tries each variant; the error is placed by the caller.
      const value = deserializeAny(r);
      if (!z.safeParse(shape.schema, value).success) {
        throw custom(`data did not match any variant of untagged enum ${shape.name}`);
      }
      return value;
    }
    case "lazy":
      return deserialize(r, shape.resolve());
  }
}

/** serde_json `peek_invalid_type`: consume the offending scalar and describe it. */
function peekInvalidType(r: Reader, expected: string): SerdeError {
  let unexpected: string;
  switch (r.peek()) {
    case 0x6e:
      r.eat();
      r.parseIdent("ull");
      unexpected = "null";
      break;
    case 0x74:
      r.eat();
      r.parseIdent("rue");
      unexpected = "boolean `true`";
      break;
    case 0x66:
      r.eat();
      r.parseIdent("alse");
      unexpected = "boolean `false`";
      break;
    case MINUS:
      r.eat();
      unexpected = unexpectedNumber(parseInteger(r, false));
      break;
    case QUOTE:
      r.eat();
      unexpected = unexpectedString(r.parseStr());
      break;
    case OPEN_SEQ:
      unexpected = "sequence";
      break;
    case OPEN_MAP:
      unexpected = "map";
      break;
    default: {
      const c = r.peek();
      if (c < 0x30 || c > 0x39) return r.peekError(Code.ExpectedSomeValue);
      unexpected = unexpectedNumber(parseInteger(r, true));
    }
  }
  const error = invalidType(unexpected, expected);
  r.fix(error);
  return error;
}

/** Peek the next value's first byte; nothing left is serde's "EOF while parsing a value". */
function peekValue(r: Reader): number {
  const c = r.skipWhitespace();
  if (c === EOF) throw r.peekError(Code.EofWhileParsingValue);
  return c;
}

function deserializeStr(r: Reader, expected: string): string {
  if (peekValue(r) !== QUOTE) throw peekInvalidType(r, expected);
  r.eat();
  return r.parseStr();
}

function deserializeBool(r: Reader): boolean {
  const c = peekValue(r);
  if (c === 0x74 || c === 0x66) {
    r.eat();
    r.parseIdent(c === 0x74 ? "rue" : "alse");
    return c === 0x74;
  }
  throw peekInvalidType(r, "a boolean");
}

function deserializeUnit(r: Reader): null {
  if (peekValue(r) !== 0x6e) throw peekInvalidType(r, "unit");
  r.eat();
  r.parseIdent("ull");
  return null;
}

function deserializeNumber(r: Reader, rust: string, range: { min: bigint; max: bigint } | null): number {
  const c = peekValue(r);
  let n: ParsedNumber;
  if (c === MINUS) {
    r.eat();
    n = parseInteger(r, false);
  } else if (c >= 0x30 && c <= 0x39) n = parseInteger(r, true);
  else throw peekInvalidType(r, rust);
  if (range === null) return numberValue(n);
  // The primitive visitors: floats are the wrong type, integers out of range the wrong value.
  if (n.kind === "f64") throw r.fix(invalidType(unexpectedNumber(n), rust));
  const value = n.kind === "u64" ? BigInt(n.digits) : -BigInt(n.digits);
  if (value < range.min || value > range.max) {
    throw r.fix(custom(`invalid value: ${unexpectedNumber(n)}, expected ${rust}`));
  }
  return numberValue(n);
}

function deserializeOption(r: Reader, inner: Shape, none: null | undefined): unknown {
  if (r.skipWhitespace() === 0x6e) {
    r.eat();
    r.parseIdent("ull");
    return none;
  }
  return deserialize(r, inner);
}

/** A unit-variant name (`deserialize_identifier`); unknown names fail after the string. */
function deserializeVariant(r: Reader, variants: readonly string[], expected: string): string {
  const name = deserializeStr(r, expected);
  if (!variants.includes(name)) {
    const list = variants.length === 0 ? "there are no variants" : `expected ${oneOf(variants)}`;
    throw r.fix(custom(`unknown variant \`${name}\`, ${list}`));
  }
  return name;
}

/** serde_json `deserialize_enum` for unit variants: `"name"` or `{"name": null}`. */
function deserializeEnum(r: Reader, variants: readonly string[]): string {
  const c = r.skipWhitespace();
  if (c === QUOTE) return deserializeVariant(r, variants, "variant identifier");
  if (c === EOF) throw r.peekError(Code.EofWhileParsingValue);
  if (c !== OPEN_MAP) throw r.peekError(Code.ExpectedSomeValue);
  r.enter();
  r.eat();
  const name = deserializeVariant(r, variants, "variant identifier");
  r.parseObjectColon();
  deserializeUnit(r);
  r.leave();
  const end = r.skipWhitespace();
  if (end === CLOSE_MAP) {
    r.eat();
    return name;
  }
  throw r.error(end === EOF ? Code.EofWhileParsingObject : Code.ExpectedSomeValue);
}

/**
 * `[`/`{` handling shared by every container: consume the bracket, run the visitor, then
 * always run end_seq/end_map (it moves the position custom errors are placed at); the
 * visitor's error wins.
 */
function container<T>(r: Reader, open: number, visit: () => T): T {
  r.enter();
  r.eat();
  let result: { value: T } | undefined;
  let failure: unknown;
  try {
    result = { value: visit() };
  } catch (error) {
    failure = error;
  }
  try {
    if (open === OPEN_SEQ) r.endSeq();
    else r.endMap();
  } catch (error) {
    failure ??= error;
  }
  r.leave();
  if (result === undefined || failure !== undefined) throw failure;
  return result.value;
}

/** serde_json `SeqAccess::next_element_seed` up to the element: false at `]`. */
function nextElement(r: Reader, state: { first: boolean }): boolean {
  let c = r.skipWhitespace();
  if (c === CLOSE_SEQ) return false;
  if (c === COMMA && !state.first) {
    r.eat();
    c = r.skipWhitespace();
  } else if (c !== EOF) {
    if (!state.first) throw r.peekError(Code.ExpectedListCommaOrEnd);
    state.first = false;
  } else throw r.peekError(Code.EofWhileParsingList);
  if (c === CLOSE_SEQ) throw r.peekError(Code.TrailingComma);
  if (c === EOF) throw r.peekError(Code.EofWhileParsingValue);
  return true;
}

/** serde_json `MapAccess::next_key_seed` for string keys: null at `}`. */
function nextKey(r: Reader, state: { first: boolean }): string | null {
  let c = r.skipWhitespace();
  if (c === CLOSE_MAP) return null;
  if (c === COMMA && !state.first) {
    r.eat();
    c = r.skipWhitespace();
  } else if (c !== EOF) {
    if (!state.first) throw r.peekError(Code.ExpectedObjectCommaOrEnd);
    state.first = false;
  } else throw r.peekError(Code.EofWhileParsingObject);
  if (c === QUOTE) {
    r.eat();
    return r.parseStr();
  }
  if (c === CLOSE_MAP) throw r.peekError(Code.TrailingComma);
  if (c === EOF) throw r.peekError(Code.EofWhileParsingValue);
  throw r.peekError(Code.KeyMustBeAString);
}

function deserializeSeq(r: Reader, item: Shape): unknown[] {
  const c = peekValue(r);
  try {
    if (c !== OPEN_SEQ) throw peekInvalidType(r, "a sequence");
    return container(r, OPEN_SEQ, () => {
      const out: unknown[] = [];
      const state = { first: true };
      while (nextElement(r, state)) out.push(deserialize(r, item));
      return out;
    });
  } catch (error) {
    throw r.fix(error);
  }
}

function deserializeMap(r: Reader, keyVariants: readonly string[] | null, value: Shape): object {
  const c = peekValue(r);
  try {
    if (c !== OPEN_MAP) throw peekInvalidType(r, "a map");
    return container(r, OPEN_MAP, () => {
      const out: Record<string, unknown> = {};
      const state = { first: true };
      for (let key = nextKey(r, state); key !== null; key = nextKey(r, state)) {
        if (keyVariants && !keyVariants.includes(key)) {
          throw r.fix(custom(`unknown variant \`${key}\`, expected ${oneOf(keyVariants)}`));
        }
        r.parseObjectColon();
        setKey(out, key, deserialize(r, value));
      }
      return out;
    });
  } catch (error) {
    throw r.fix(error);
  }
}

function deserializeStruct(r: Reader, shape: StructShape): Record<string, unknown> {
  const c = peekValue(r);
  try {
    if (c === OPEN_MAP) return container(r, OPEN_MAP, () => visitStructMap(r, shape));
    if (c === OPEN_SEQ) return container(r, OPEN_SEQ, () => visitStructSeq(r, shape));
    throw peekInvalidType(r, shape.expecting);
  } catch (error) {
    throw r.fix(error);
  }
}

/** The derived `visit_map`: fields in any order, unknown keys skipped, then missing ones. */
function visitStructMap(r: Reader, shape: StructShape): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const seen = new Set<string>();
  const state = { first: true };
  for (let key = nextKey(r, state); key !== null; key = nextKey(r, state)) {
    const field = shape.byKey.get(key);
    if (!field) {
      if (shape.denyUnknown) {
        const names = shape.fields.map((f) => f.name);
        const list = names.length === 0 ? "there are no fields" : `expected ${oneOf(names)}`;
        throw custom(`unknown field \`${key}\`, ${list}`);
      }
      r.parseObjectColon();
      if (shape.extra) setKey(out, key, deserialize(r, shape.extra));
      else ignoreValue(r);
      continue;
    }
    if (seen.has(field.name)) throw custom(`duplicate field \`${field.name}\``);
    seen.add(field.name);
    r.parseObjectColon();
    const value = deserialize(r, field.shape);
    if (value !== undefined) out[field.name] = value;
  }
  for (const field of shape.fields) {
    if (seen.has(field.name)) continue;
    if (field.required) throw custom(`missing field \`${field.name}\``);
    if (field.missing === null) out[field.name] = null;
  }
  return out;
}

/** The derived `visit_seq`: fields by position; too few is an invalid length. */
function visitStructSeq(r: Reader, shape: StructShape): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const state = { first: true };
  const count = shape.fields.length;
  for (const [i, field] of shape.fields.entries()) {
    if (!nextElement(r, state)) {
      if (field.hasDefault) continue;
      const plural = count === 1 ? "" : "s";
      throw custom(`invalid length ${i}, expected ${shape.expecting} with ${count} element${plural}`);
    }
    const value = deserialize(r, field.shape);
    if (value !== undefined) out[field.name] = value;
  }
  return out;
}

/** serde_json::Value: any JSON, with the typed access rules (e.g. no trailing commas). */
function deserializeAny(r: Reader): unknown {
  const c = peekValue(r);
  try {
    switch (c) {
      case 0x6e:
        r.eat();
        r.parseIdent("ull");
        return null;
      case 0x74:
      case 0x66:
        return deserializeBool(r);
      case MINUS:
        r.eat();
        return numberValue(parseInteger(r, false));
      case QUOTE:
        r.eat();
        return r.parseStr();
      case OPEN_SEQ:
        return container(r, OPEN_SEQ, () => {
          const out: unknown[] = [];
          const state = { first: true };
          while (nextElement(r, state)) out.push(deserializeAny(r));
          return out;
        });
      case OPEN_MAP:
        return container(r, OPEN_MAP, () => {
          const out: Record<string, unknown> = {};
          const state = { first: true };
          for (let key = nextKey(r, state); key !== null; key = nextKey(r, state)) {
            r.parseObjectColon();
            setKey(out, key, deserializeAny(r));
          }
          return out;
        });
      default:
        if (c < 0x30 || c > 0x39) throw r.peekError(Code.ExpectedSomeValue);
        return numberValue(parseInteger(r, true));
    }
  } catch (error) {
    throw r.fix(error);
  }
}

/** Assign without letting a `__proto__` key reach the prototype. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}
