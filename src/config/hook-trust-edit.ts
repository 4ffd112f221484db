/**
 * Recording that the user trusts a hook: `[hooks.state."<key>"] trusted_hash = "sha256:…"` in
 * config.toml text, keeping the rest of the file as written (checked by parsing the result;
 * see mcp-edit.ts for the fallback).
 */
import { parse } from "smol-toml";
import { type TomlEdit, verified } from "./mcp-edit.js";

type Table = Record<string, unknown>;

function tableAt(doc: Table, key: string): Table {
  const value = doc[key];
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Table) : {};
}

/** `text` with hook `key` trusted at `hash` (an older hash for the key is replaced). */
export function setHookTrust(text: string, key: string, hash: string): TomlEdit {
  const doc = parse(text) as Table;
  const hooks = tableAt(doc, "hooks");
  const state = tableAt(hooks, "state");
  const expected: Table = {
    ...doc,
    hooks: { ...hooks, state: { ...state, [key]: { ...tableAt(state, key), trusted_hash: hash } } },
  };
  const header = `[hooks.state.${JSON.stringify(key)}]`;
  const line = `trusted_hash = ${JSON.stringify(hash)}`;
  const lines = text.split("\n");
  const at = lines.findIndex((entry) => entry.trim() === header);
  let candidate: string;
  if (at >= 0) {
    // Drop the table's old trusted_hash (up to the next table header), then set the new one.
    let end = at + 1;
    while (end < lines.length && !/^\s*\[/.test(lines[end] ?? "")) end++;
    const body = lines.slice(at + 1, end).filter((entry) => !/^\s*trusted_hash\s*=/.test(entry));
    candidate = [...lines.slice(0, at + 1), line, ...body, ...lines.slice(end)].join("\n");
  } else {
    const trimmed = text.replace(/\s+$/, "");
    candidate = `${trimmed === "" ? "" : `${trimmed}\n\n`}${header}\n${line}\n`;
  }
  return verified(candidate, expected);
}
