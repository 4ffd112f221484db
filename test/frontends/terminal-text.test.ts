/**
 * The terminal-text sanitizer over every class of character a terminal acts on: C0 controls
 * (ESC, CR, BEL, NUL, backspace…), DEL, C1 controls (8-bit CSI and OSC among them) and the bidi
 * controls; newline and tab as the options say; and the output guard that lets only the UI's
 * own SGR styling through.
 */
import { describe, expect, it } from "vitest";
import {
  controlNotation,
  guardOutput,
  visibleLine,
  visibleStrings,
  visibleText,
} from "../../src/frontends/common/terminal-text.js";

/** Nothing a terminal acts on: no C0 but newline, no DEL, no C1, no bidi control. */
const RAW_CONTROL_CLASS =
  "[\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]";
const RAW_CONTROL = new RegExp(RAW_CONTROL_CLASS);

describe("visibleText", () => {
  it("shows every C0 control but newline and tab in caret notation, and DEL as ^?", () => {
    for (let code = 0; code < 0x20; code++) {
      if (code === 0x0a || code === 0x09) continue;
      const shown = visibleText(`a${String.fromCharCode(code)}b`);
      expect(shown).toBe(`a^${String.fromCharCode(code + 0x40)}b`);
    }
    expect(visibleText("a\u007fb")).toBe("a^?b");
    expect(visibleText("\u001b[2K\r\u0007\u0000\b")).toBe("^[[2K^M^G^@^H");
  });

  it("shows every C1 control (8-bit CSI and OSC too) as <U+XXXX>", () => {
    for (let code = 0x80; code <= 0x9f; code++) {
      const hex = code.toString(16).toUpperCase().padStart(4, "0");
      expect(visibleText(`a${String.fromCharCode(code)}b`)).toBe(`a<U+${hex}>b`);
    }
    expect(visibleText("\u009b2J\u009d0;title\u009c")).toBe("<U+009B>2J<U+009D>0;title<U+009C>");
  });

  it("shows the bidi controls (overrides, embeddings, isolates, marks) as <U+XXXX>", () => {
    const bidi = [
      0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
    ];
    for (const code of bidi) {
      const hex = code.toString(16).toUpperCase().padStart(4, "0");
      expect(visibleText(`x${String.fromCharCode(code)}y`)).toBe(`x<U+${hex}>y`);
    }
  });

  it("turns whole escape sequences into inert text: OSC 2, OSC 52, OSC 8, a line erase", () => {
    const hostile =
      "\u001b]2;pwned\u0007\u001b]52;c;aGk=\u0007\u001b]8;;http://evil/\u001b\\link\u001b]8;;\u001b\\ \r\u001b[2KRun ls";
    const shown = visibleText(hostile);
    expect(shown).not.toMatch(RAW_CONTROL);
    expect(shown).toBe("^[]2;pwned^G^[]52;c;aGk=^G^[]8;;http://evil/^[\\link^[]8;;^[\\ ^M^[[2KRun ls");
  });

  it("keeps newlines, or shows them as ^J on one line; expands tabs to 8-column stops or keeps them", () => {
    expect(visibleText("one\ntwo")).toBe("one\ntwo");
    expect(visibleLine("one\ntwo\r")).toBe("one^Jtwo^M");
    expect(visibleText("a\tb\nabcdefgh\tc")).toBe("a       b\nabcdefgh        c");
    expect(visibleText("a\tb", { tabs: "keep" })).toBe("a\tb");
    expect(visibleText("plain text, ünïcödé, 表")).toBe("plain text, ünïcödé, 表");
  });

  it("controlNotation names a character the way visibleText shows it", () => {
    expect(controlNotation("\u001b")).toBe("^[");
    expect(controlNotation("\u007f")).toBe("^?");
    expect(controlNotation("\u202e")).toBe("<U+202E>");
  });
});

describe("visibleStrings", () => {
  it("sanitizes every string of a nested value, object keys included, and leaves the rest", () => {
    const event = {
      type: "exec_command_end",
      command: ["bash", "-lc", "echo \u001b]2;x\u0007"],
      changes: { "evil\u001b[2K.txt": { type: "add", content: "\u009b" } },
      exit_code: 0,
      ok: true,
      none: null,
    };
    expect(visibleStrings(event)).toEqual({
      type: "exec_command_end",
      command: ["bash", "-lc", "echo ^[]2;x^G"],
      changes: { "evil^[[2K.txt": { type: "add", content: "<U+009B>" } },
      exit_code: 0,
      ok: true,
      none: null,
    });
    expect(event.command[2]).toBe("echo \u001b]2;x\u0007");
    const chunk = new Uint8Array([0x1b, 0x5d]);
    expect(visibleStrings({ chunk }).chunk).toBe(chunk);
  });
});

describe("guardOutput", () => {
  it("lets the UI's own SGR codes through and shows every other control", () => {
    const styled = "\u001b[1mbold\u001b[22m \u001b[36mcyan\u001b[39m\u001b[0m";
    expect(guardOutput(styled, { newlines: "show" })).toBe(styled);
    expect(guardOutput("\u001b[8mhidden\u001b[2J\u001b]2;t\u0007\r", { newlines: "show" })).toBe(
      "^[[8mhidden^[[2J^[]2;t^G^M",
    );
    expect(guardOutput("a\nb\tc\u202e", { newlines: "show" })).toBe("a^Jb\tc<U+202E>");
    expect(guardOutput("a\nb", { newlines: "keep" })).toBe("a\nb");
  });
});
