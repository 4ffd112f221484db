/**
 * Setting or removing one `[features]` flag in config.toml text (`tscodex features enable |
 * disable`), keeping the rest of the file as written; checked by parsing the result, with
 * mcp-edit.ts's full rewrite as the fallback (dotted `features.x = …` keys, inline tables).
 */
import { parse } from "smol-toml";
import { type TomlEdit, verified } from "./mcp-edit.js";

type Table = Record<string, unknown>;

/** A key as TOML writes it: bare when it can be, else quoted (`"guardianv2.thread_context"`). */
function tomlKey(name: string): string {
  return /^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name);
}

/**
 * `text` with `features.NAME = value`, or without the key when `value` is undefined. The
 * `[features]` table is created when missing and kept (possibly empty) when its last key goes.
 */
export function setFeatureFlag(text: string, name: string, value: boolean | undefined): TomlEdit {
  const doc = parse(text) as Table;
  const current = doc.features;
  const features: Table =
    typeof current === "object" && current !== null && !Array.isArray(current)
      ? { ...(current as Table) }
      : {};
  if (value === undefined) delete features[name];
  else features[name] = value;
  const expected: Table = { ...doc, features };
  const line = value === undefined ? [] : [`${tomlKey(name)} = ${value}`];
  const lines = text.split("\n");
  const header = lines.findIndex((entry) => /^\s*\[\s*features\s*\]\s*(#.*)?$/.test(entry));
  let candidate: string;
  if (header >= 0) {
    let end = header + 1;
    while (end < lines.length && !/^\s*\[/.test(lines[end] ?? "")) end++;
    const keyPattern = new RegExp(
      `^\\s*(${regexLiteral(name)}|"${regexLiteral(name)}"|'${regexLiteral(name)}')\\s*=`,
    );
    const body = lines.slice(header + 1, end).filter((entry) => !keyPattern.test(entry));
    // The new key goes after the table's last key, before the blank lines and comments that
    // lead into the next table.
    let insertAt = body.length;
    while (insertAt > 0 && /^\s*(#.*)?$/.test(body[insertAt - 1] ?? "")) insertAt--;
    body.splice(insertAt, 0, ...line);
    candidate = [...lines.slice(0, header + 1), ...body, ...lines.slice(end)].join("\n");
  } else {
    const trimmed = text.replace(/\s+$/, "");
    candidate = `${trimmed === "" ? "" : `${trimmed}\n\n`}${["[features]", ...line].join("\n")}\n`;
  }
  return verified(candidate, expected);
}

function regexLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
