/**
 * serde_json `ignore_value`: validate and skip a value nobody asked for (an unknown field).
 * Its rules differ slightly from typed parsing (e.g. `[1,]` is "expected value" here), and it
 * is iterative with no depth limit, as in serde_json.
 */
import { isDigit } from "./numbers.js";
import { Code, EOF, type Reader } from "./reader.js";

/** Skip one value (serde_json `ignore_value`). */
export function ignoreValue(r: Reader): void {
  const stack: number[] = [];
  let enclosing = EOF;
  for (;;) {
    const peek = r.skipWhitespace();
    let frame = EOF;
    switch (peek) {
      case EOF:
        throw r.peekError(Code.EofWhileParsingValue);
      case 0x6e:
        r.eat();
        r.parseIdent("ull");
        break;
      case 0x74:
        r.eat();
        r.parseIdent("rue");
        break;
      case 0x66:
        r.eat();
        r.parseIdent("alse");
        break;
      case 0x2d:
        r.eat();
        ignoreInteger(r);
        break;
      case 0x22:
        r.eat();
        r.ignoreStr();
        break;
      case 0x5b:
      case 0x7b:
        if (enclosing !== EOF) stack.push(enclosing);
        enclosing = EOF;
        r.eat();
        frame = peek;
        break;
      default:
        if (!isDigit(peek)) throw r.peekError(Code.ExpectedSomeValue);
        ignoreInteger(r);
    }
    let acceptComma = true;
    let current: number;
    if (frame !== EOF) {
      acceptComma = false;
      current = frame;
    } else if (enclosing !== EOF) {
      current = enclosing;
      enclosing = EOF;
    } else {
      const popped = stack.pop();
      if (popped === undefined) return;
      current = popped;
    }
    for (;;) {
      const c = r.skipWhitespace();
      if (c === 0x2c && acceptComma) {
        r.eat();
        break;
      }
      const closes = (c === 0x5d && current === 0x5b) || (c === 0x7d && current === 0x7b);
      if (!closes) {
        if (c === EOF) {
          throw r.peekError(current === 0x5b ? Code.EofWhileParsingList : Code.EofWhileParsingObject);
        }
        if (acceptComma) {
          throw r.peekError(current === 0x5b ? Code.ExpectedListCommaOrEnd : Code.ExpectedObjectCommaOrEnd);
        }
        break;
      }
      r.eat();
      const popped = stack.pop();
      if (popped === undefined) return;
      current = popped;
      acceptComma = true;
    }
    if (current === 0x7b) {
      const q = r.skipWhitespace();
      if (q === EOF) throw r.peekError(Code.EofWhileParsingObject);
      if (q !== 0x22) throw r.peekError(Code.KeyMustBeAString);
      r.eat();
      r.ignoreStr();
      const colon = r.skipWhitespace();
      if (colon === EOF) throw r.peekError(Code.EofWhileParsingObject);
      if (colon !== 0x3a) throw r.peekError(Code.ExpectedColon);
      r.eat();
    }
    enclosing = current;
  }
}

function ignoreInteger(r: Reader): void {
  ignoreDigitRun(r, true);
  const c = r.peek();
  if (c === 0x2e) {
    r.eat();
    if (!isDigit(r.peek())) throw r.peekError(Code.InvalidNumber);
    while (isDigit(r.peek())) r.eat();
    const e = r.peek();
    if (e === 0x65 || e === 0x45) ignoreExponent(r);
  } else if (c === 0x65 || c === 0x45) ignoreExponent(r);
}

function ignoreExponent(r: Reader): void {
  r.eat();
  const sign = r.peek();
  if (sign === 0x2b || sign === 0x2d) r.eat();
  ignoreDigitRun(r, false);
}

/** `next_char_or_null` then digits; integer parts also reject leading zeros. */
function ignoreDigitRun(r: Reader, integerPart: boolean): void {
  if (r.index >= r.length) throw r.error(Code.InvalidNumber);
  const first = r.index++;
  const c = r.text.charCodeAt(first);
  if (!isDigit(c)) throw r.errorAfterByteOf(first, Code.InvalidNumber);
  if (integerPart && c === 0x30) {
    if (isDigit(r.peek())) throw r.peekError(Code.InvalidNumber);
    return;
  }
  while (isDigit(r.peek())) r.eat();
}
