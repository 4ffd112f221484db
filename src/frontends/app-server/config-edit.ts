/**
 * Edits to config.toml by key path (`model`, `sandbox_workspace_write.network_access`), keeping
 * the rest of the file as written where a line edit can: a scalar or array value replaces its
 * `key = …` line, or is added at the end of its table (the table is appended when missing); a
 * `null` value removes the key. Every result is checked by parsing it back: when the line edit
 * does not produce exactly the intended document (inline tables, dotted keys, multi-line values,
 * table values), the whole document is re-serialized instead (its comments are then lost).
 */
import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { parse, stringify } from "smol-toml";
import { toPlain } from "../../config/overrides.js";

export interface KeyEdit {
  keyPath: string;
  value: unknown;
  mergeStrategy: "replace" | "upsert";
}

type Table = Record<string, unknown>;

/** Codex's config version: the file's SHA-256. */
export function configVersion(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

export function parseConfigText(text: string): Table {
  return toPlain(parse(text)) as Table;
}

/** `text` with `edits` applied, and the document it now holds. Throws on a bad key path. */
export function applyEdits(text: string, edits: readonly KeyEdit[]): { text: string; doc: Table } {
  const doc = structuredClone(parseConfigText(text));
  let candidate: string | null = text;
  for (const edit of edits) {
    const path = splitKeyPath(edit.keyPath);
    const value = edit.mergeStrategy === "upsert" ? merged(valueAt(doc, path), edit.value) : edit.value;
    setAt(doc, path, value);
    candidate = candidate === null ? null : lineEdit(candidate, path, value);
  }
  if (candidate !== null && sameDocument(candidate, doc)) return { text: candidate, doc };
  return { text: stringify(doc), doc };
}

function splitKeyPath(keyPath: string): string[] {
  const path = keyPath.split(".").map((part) => part.trim());
  if (path.some((part) => part === "")) throw new Error(`invalid key path '${keyPath}'`);
  return path;
}

function isTable(value: unknown): value is Table {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** upsert: tables merge key by key (recursively); anything else replaces. */
function merged(current: unknown, value: unknown): unknown {
  if (!isTable(current) || !isTable(value)) return value;
  const out: Table = { ...current };
  for (const [key, inner] of Object.entries(value)) out[key] = merged(current[key], inner);
  return out;
}

function valueAt(doc: Table, path: readonly string[]): unknown {
  let node: unknown = doc;
  for (const part of path) node = isTable(node) ? node[part] : undefined;
  return node;
}

/** Set (or, for null, remove) the value at `path`, creating tables on the way. */
function setAt(doc: Table, path: readonly string[], value: unknown): void {
  let node = doc;
  for (const part of path.slice(0, -1)) {
    const next = node[part];
    if (isTable(next)) node = next;
    else {
      if (next !== undefined && value !== null)
        throw new Error(`'${part}' is not a table, so '${path.join(".")}' cannot be set`);
      if (value === null) return;
      const table: Table = {};
      node[part] = table;
      node = table;
    }
  }
  const key = path[path.length - 1] as string;
  if (value === null) delete node[key];
  else node[key] = value;
}

function sameDocument(text: string, doc: Table): boolean {
  try {
    return isDeepStrictEqual(
      JSON.parse(JSON.stringify(parseConfigText(text))),
      JSON.parse(JSON.stringify(doc)),
    );
  } catch {
    return false;
  }
}

const HEADER = /^\s*\[([^[\]]+)\]\s*(#.*)?$/;

/** One key's line edited in place; null when a line edit cannot express it. */
function lineEdit(text: string, path: readonly string[], value: unknown): string | null {
  if (isTable(value)) return null;
  const key = path[path.length - 1] as string;
  let rendered: string | null = null;
  if (value !== null) {
    rendered = stringify({ [key]: value }).trim();
    if (rendered.includes("\n")) return null;
  }
  const lines = text.split("\n");
  const table = path.slice(0, -1).join(".");
  let start = 0;
  if (table !== "") {
    start = lines.findIndex((line) => HEADER.exec(line)?.[1]?.replace(/\s+/g, "") === table) + 1;
    if (start === 0) {
      if (rendered === null) return text;
      const body = text.replace(/\s+$/, "");
      return `${body}${body ? "\n\n" : ""}[${table}]\n${rendered}\n`;
    }
  }
  let end = lines.findIndex((line, index) => index >= start && /^\s*\[/.test(line));
  if (end < 0) end = lines.length;
  const keyLine = new RegExp(
    `^\\s*(${escapeRegExp(key)}|"${escapeRegExp(key)}"|'${escapeRegExp(key)}')\\s*=`,
  );
  const at = lines.findIndex((line, index) => index >= start && index < end && keyLine.test(line));
  if (at >= 0) {
    if (rendered === null) lines.splice(at, 1);
    else lines[at] = rendered;
    return lines.join("\n");
  }
  if (rendered === null) return text;
  // After the table's last key: blank lines and comments just above the next header belong to it.
  let insert = end;
  while (insert > start && /^\s*(#.*)?$/.test(lines[insert - 1] ?? "")) insert--;
  lines.splice(insert, 0, rendered);
  return lines.join("\n");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
