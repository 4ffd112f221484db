/**
 * The lexical core of serde_json's `Deserializer<StrRead>`: position, errors, whitespace,
 * punctuation, literals and strings, with serde_json's error codes and positions. Numbers
 * are in numbers.ts, skipping of ignored values in ignore.ts.
 *
 * Positions follow serde_json: line is 1-based; column counts UTF-8 bytes from the line
 * start up to the last consumed byte (`error`) or up to and including the next byte
 * (`peek_error`). Indices here are UTF-16 offsets; bytes are only counted when an error is
 * rendered, so the happy path stays a single linear scan.
 */
export const EOF = -1;

/** serde_json's `ErrorCode` texts. */
export const Code = {
  EofWhileParsingList: "EOF while parsing a list",
  EofWhileParsingObject: "EOF while parsing an object",
  EofWhileParsingString: "EOF while parsing a string",
  EofWhileParsingValue: "EOF while parsing a value",
  ExpectedColon: "expected `:`",
  ExpectedListCommaOrEnd: "expected `,` or `]`",
  ExpectedObjectCommaOrEnd: "expected `,` or `}`",
  ExpectedSomeIdent: "expected ident",
  ExpectedSomeValue: "expected value",
  InvalidEscape: "invalid escape",
  InvalidNumber: "invalid number",
  NumberOutOfRange: "number out of range",
  ControlCharacterWhileParsingString: "control character (\\u0000-\\u001F) found while parsing a string",
  KeyMustBeAString: "key must be a string",
  LoneLeadingSurrogateInHexEscape: "lone leading surrogate in hex escape",
  TrailingComma: "trailing comma",
  TrailingCharacters: "trailing characters",
  UnexpectedEndOfHexEscape: "unexpected end of hex escape",
  RecursionLimitExceeded: "recursion limit exceeded",
} as const;

/**
 * A serde_json error. `line === 0` marks a custom error (missing field, invalid type, …) not
 * placed yet; the deserializer call that catches it places it (serde_json `fix_position`).
 */
export class SerdeError extends Error {
  override name = "SerdeError";
  constructor(
    message: string,
    public line = 0,
    public column = 0,
  ) {
    super(message);
  }

  /** serde_json's Display: `{msg} at line {l} column {c}`, or just `{msg}` when unplaced. */
  render(): string {
    return this.line === 0 ? this.message : `${this.message} at line ${this.line} column ${this.column}`;
  }
}

/** A custom (serde `de::Error::custom`) error, placed later. */
export function custom(message: string): SerdeError {
  return new SerdeError(message);
}

/** serde `invalid_type` as serde_json words it. */
export function invalidType(unexpected: string, expected: string): SerdeError {
  return custom(`invalid type: ${unexpected}, expected ${expected}`);
}

const MAX_DEPTH = 128;

/** The one-letter escapes: " \ / b f n r t */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/** A run of string bytes needing no attention; one class, no backtracking. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters end a JSON string run.
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** UTF-8 length of text[from, to). */
function utf8Length(text: string, from: number, to: number): number {
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < to && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

export class Reader {
  index = 0;
  private depth = MAX_DEPTH;
  readonly length: number;

  constructor(readonly text: string) {
    this.length = text.length;
  }

  peek(): number {
    return this.index < this.length ? this.text.charCodeAt(this.index) : EOF;
  }

  eat(): void {
    this.index++;
  }

  /** serde_json `parse_whitespace`: skip ` \n\t\r`, then peek. */
  skipWhitespace(): number {
    const text = this.text;
    let i = this.index;
    while (i < this.length) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x09 && c !== 0x0d) {
        this.index = i;
        return c;
      }
      i++;
    }
    this.index = i;
    return EOF;
  }

  // --- errors -------------------------------------------------------------------------

  /** serde_json `error`: at the last consumed byte. */
  error(message: string): SerdeError {
    return this.errorAt(this.index, false, message);
  }

  /** serde_json `peek_error`: at the next byte. */
  peekError(message: string): SerdeError {
    return this.errorAt(this.index, true, message);
  }

  /** An error after consuming the first byte of the char at `i` (it may be multi-byte). */
  errorAfterByteOf(i: number, message: string): SerdeError {
    return this.errorAt(i, true, message);
  }

  /** Place a custom error at the current position (serde_json `fix_position`). */
  fix(error: unknown): unknown {
    if (error instanceof SerdeError && error.line === 0) {
      const placed = this.error(error.message);
      error.line = placed.line;
      error.column = placed.column;
    }
    return error;
  }

  private errorAt(index: number, plusOneByte: boolean, message: string): SerdeError {
    const text = this.text;
    const end = Math.min(index, this.length);
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < end; i++) {
      if (text.charCodeAt(i) === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    }
    if (!plusOneByte || index >= this.length) {
      return new SerdeError(message, line, utf8Length(text, lineStart, end));
    }
    // Counting the next byte: a newline there starts a new line at column 0.
    if (text.charCodeAt(index) === 0x0a) return new SerdeError(message, line + 1, 0);
    return new SerdeError(message, line, utf8Length(text, lineStart, end) + 1);
  }

  // --- structure ----------------------------------------------------------------------

  /** serde_json `check_recursion!` on entering `[` or `{` (not consumed yet). */
  enter(): void {
    this.depth--;
    if (this.depth === 0) throw this.peekError(Code.RecursionLimitExceeded);
  }

  leave(): void {
    this.depth++;
  }

  /** serde_json `parse_object_colon`. */
  parseObjectColon(): void {
    const c = this.skipWhitespace();
    if (c === 0x3a) this.eat();
    else if (c === EOF) throw this.peekError(Code.EofWhileParsingObject);
    else throw this.peekError(Code.ExpectedColon);
  }

  /** serde_json `end_seq`, run after a sequence visitor (even a failed one). */
  endSeq(): void {
    const c = this.skipWhitespace();
    if (c === 0x5d) {
      this.eat();
      return;
    }
    if (c === 0x2c) {
      this.eat();
      throw this.peekError(this.skipWhitespace() === 0x5d ? Code.TrailingComma : Code.TrailingCharacters);
    }
    throw this.peekError(c === EOF ? Code.EofWhileParsingList : Code.TrailingCharacters);
  }

  /** serde_json `end_map`. */
  endMap(): void {
    const c = this.skipWhitespace();
    if (c === 0x7d) {
      this.eat();
      return;
    }
    if (c === 0x2c) throw this.peekError(Code.TrailingComma);
    throw this.peekError(c === EOF ? Code.EofWhileParsingObject : Code.TrailingCharacters);
  }

  /** serde_json `end`: only whitespace may follow the value. */
  end(): void {
    if (this.skipWhitespace() !== EOF) throw this.peekError(Code.TrailingCharacters);
  }

  /** serde_json `parse_ident`: the rest of `null`/`true`/`false` after its first letter. */
  parseIdent(rest: string): void {
    for (let k = 0; k < rest.length; k++) {
      if (this.index >= this.length) throw this.error(Code.EofWhileParsingValue);
      const i = this.index++;
      if (this.text.charCodeAt(i) !== rest.charCodeAt(k)) {
        throw this.errorAfterByteOf(i, Code.ExpectedSomeIdent);
      }
    }
  }

  // --- strings ------------------------------------------------------------------------

  /**
   * serde_json `parse_str` (validating), after the opening quote. Checks the string left to
   * right exactly as serde does (so the first error is serde's), then lets JSON.parse decode
   * the escapes: what passed serde's checks decodes identically, and natively.
   */
  parseStr(): string {
    const open = this.index - 1;
    let escaped = false;
    for (;;) {
      const i = this.skipPlain();
      if (i === this.length) throw this.error(Code.EofWhileParsingString);
      const c = this.text.charCodeAt(i);
      if (c === 0x22) {
        this.index = i + 1;
        const raw = this.text.slice(open, i + 1);
        return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      }
      if (c !== 0x5c) {
        this.index = i + 1;
        throw this.errorAfterByteOf(i, Code.ControlCharacterWhileParsingString);
      }
      this.index = i + 1;
      this.checkEscape(true);
      escaped = true;
    }
  }

  /** serde_json `ignore_str`: parseStr's checks minus surrogate pairing, nothing built. */
  ignoreStr(): void {
    for (;;) {
      const i = this.skipPlain();
      if (i === this.length) throw this.error(Code.EofWhileParsingString);
      const c = this.text.charCodeAt(i);
      if (c === 0x22) {
        this.index = i + 1;
        return;
      }
      // serde_json reports a control character here before consuming it (unlike parse_str).
      if (c !== 0x5c) throw this.error(Code.ControlCharacterWhileParsingString);
      this.index = i + 1;
      this.checkEscape(false);
    }
  }

  /** Skip to the next quote, backslash or control character (serde `skip_to_escape`). */
  private skipPlain(): number {
    PLAIN_RUN.lastIndex = this.index;
    PLAIN_RUN.test(this.text);
    this.index = PLAIN_RUN.lastIndex;
    return this.index;
  }

  /** One escape after its backslash (serde `parse_escape` / `ignore_escape`). */
  private checkEscape(pairSurrogates: boolean): void {
    if (this.index >= this.length) throw this.error(Code.EofWhileParsingString);
    const e = this.text.charCodeAt(this.index++);
    if (e === 0x75) {
      if (pairSurrogates) this.checkUnicodeEscape();
      else this.decodeHexEscape();
    } else if (!SIMPLE_ESCAPES.has(e)) throw this.errorAfterByteOf(this.index - 1, Code.InvalidEscape);
  }

  /** `\uXXXX` as a UTF-8 string needs it: surrogates only in high-low pairs. */
  private checkUnicodeEscape(): void {
    const n = this.decodeHexEscape();
    if (n >= 0xdc00 && n <= 0xdfff) throw this.error(Code.LoneLeadingSurrogateInHexEscape);
    if (n < 0xd800 || n > 0xdbff) return;
    for (const expected of [0x5c, 0x75]) {
      if (this.index >= this.length) throw this.error(Code.EofWhileParsingString);
      const i = this.index++;
      if (this.text.charCodeAt(i) !== expected) throw this.errorAfterByteOf(i, Code.UnexpectedEndOfHexEscape);
    }
    const low = this.decodeHexEscape();
    if (low < 0xdc00 || low > 0xdfff) throw this.error(Code.LoneLeadingSurrogateInHexEscape);
  }

  /** Four hex digits; serde_json first checks that four bytes remain. */
  private decodeHexEscape(): number {
    if (this.length - this.index < 4 && utf8Length(this.text, this.index, this.length) < 4) {
      this.index = this.length;
      throw this.error(Code.EofWhileParsingString);
    }
    let n = 0;
    for (let k = 0; k < 4; k++) {
      const i = this.index++;
      const v = hexValue(this.text.charCodeAt(i));
      if (v < 0) throw this.errorAfterByteOf(i, Code.InvalidEscape);
      n = n * 16 + v;
    }
    return n;
  }
}
