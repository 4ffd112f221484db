/**
 * Raw terminal input → key events. Knows the sequences Codex's keys need: Enter (CR), Ctrl+J
 * (LF), Shift+Enter (kitty `CSI 13;2u`, xterm `CSI 27;2;13~`, or ESC CR), arrows, Home/End,
 * Backspace/Delete, Ctrl+C/D, a lone Esc, and bracketed paste (inserted as text).
 */
export type Key =
  | { name: "text"; text: string }
  | {
      name:
        | "enter"
        | "newline"
        | "up"
        | "down"
        | "left"
        | "right"
        | "home"
        | "end"
        | "backspace"
        | "delete"
        | "escape"
        | "ctrl-c"
        | "ctrl-d"
        | "tab"
        | "ctrl-u";
    };

const CSI_KEYS: Record<string, Key["name"]> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
  "1~": "home",
  "4~": "end",
  "3~": "delete",
  "13;2u": "newline",
  "27;2;13~": "newline",
  "13u": "enter",
};

const CONTROL: Record<string, Key["name"]> = {
  "\r": "enter",
  "\n": "newline",
  "\x7f": "backspace",
  "\b": "backspace",
  "\x03": "ctrl-c",
  "\x04": "ctrl-d",
  "\t": "tab",
  "\x15": "ctrl-u",
  "\x01": "home",
  "\x05": "end",
};

export function parseKeys(input: string): Key[] {
  const keys: Key[] = [];
  let text = "";
  const flush = (): void => {
    if (text) keys.push({ name: "text", text });
    text = "";
  };
  for (let i = 0; i < input.length; ) {
    const char = input[i] as string;
    if (input.startsWith("\x1b[200~", i)) {
      const end = input.indexOf("\x1b[201~", i);
      const stop = end < 0 ? input.length : end;
      text += input.slice(i + 6, stop).replace(/\r\n?/g, "\n");
      i = end < 0 ? stop : stop + 6;
      continue;
    }
    if (char === "\x1b") {
      flush();
      const next = input[i + 1];
      if (next === "[" || next === "O") {
        let j = i + 2;
        while (j < input.length && !/[A-Za-z~]/.test(input[j] as string)) j++;
        const body = input.slice(i + 2, j + 1);
        const name = CSI_KEYS[body] ?? CSI_KEYS[body.replace(/^1;\d/, "")];
        if (name) keys.push({ name } as Key);
        i = j + 1;
        continue;
      }
      if (next === "\r") {
        keys.push({ name: "newline" });
        i += 2;
        continue;
      }
      keys.push({ name: "escape" });
      i++;
      continue;
    }
    const control = CONTROL[char];
    if (control) {
      flush();
      keys.push({ name: control } as Key);
      i++;
      continue;
    }
    if (char < " ") {
      i++;
      continue;
    }
    text += char;
    i++;
  }
  flush();
  return keys;
}
