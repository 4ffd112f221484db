/**
 * SKILL.md front matter, read as Codex 0.169 reads it: a `---` block at the top with YAML
 * `name` (defaults to the directory) and `description` (required), name at most 64
 * characters. A small YAML subset: `key: value` lines, quoted strings, block scalars (`|`, `>`),
 * anything else kept as its literal text (Codex accepted `name: [unclosed` as that string).
 * Problems are thrown with Codex's wording, so the warning names the same reason.
 * Only the file's start is read (skill-file.ts): a front matter that does not end within it is
 * refused with a reason of its own.
 */

export const MAX_SKILL_NAME = 64;

export interface SkillFrontMatter {
  name: string;
  description: string;
}

export class SkillFileError extends Error {
  override name = "SkillFileError";
}

/**
 * The front matter of `text`, a SKILL.md or its start. `readBytes` is how much was read when the
 * file goes on past `text` (undefined: `text` is the whole file).
 */
export function parseSkillFrontMatter(
  text: string,
  directoryName: string,
  readBytes?: number,
): SkillFrontMatter {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  // The last line of a cut read may be cut too: only whole lines count.
  if (readBytes !== undefined) lines.pop();
  const end = lines.indexOf("---", 1);
  if (lines[0] === "---" && end < 0 && readBytes !== undefined)
    throw new SkillFileError(`frontmatter does not end within the first ${readBytes / 1024} KiB`);
  if (lines[0] !== "---" || end < 0) throw new SkillFileError("missing YAML frontmatter delimited by ---");
  const fields = parseFields(lines.slice(1, end));
  const description = fields.get("description");
  if (description === undefined) throw new SkillFileError("missing field `description`");
  const name = fields.get("name") ?? directoryName;
  if (name.length > MAX_SKILL_NAME)
    throw new SkillFileError(`invalid name: exceeds maximum length of ${MAX_SKILL_NAME} characters`);
  return { name, description };
}

/** Top-level `key: value` pairs; a key whose value is a nested map is an error for name/description. */
function parseFields(lines: string[]): Map<string, string> {
  const fields = new Map<string, string>();
  const tabbed = lines.findIndex((line) => /^ *\t/.test(line) && line.trim() !== "");
  if (tabbed >= 0)
    throw new SkillFileError(
      `invalid YAML: found a tab character that violates indentation at line ${tabbed + 2} column 1`,
    );
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    if (/^\s*(#.*)?$/.test(line)) continue;
    if (/^\s/.test(line)) continue;
    const match = /^([^:#]+?)\s*:(?:\s+(.*))?$/.exec(line);
    if (!match) throw new SkillFileError(`invalid YAML: could not find expected ':' at line ${index + 2}`);
    const key = match[1] ?? "";
    const raw = (match[2] ?? "").trim();
    const nested: string[] = [];
    while (index + 1 < lines.length && /^(\s|$)/.test(lines[index + 1] ?? ""))
      nested.push(lines[++index] ?? "");
    if (raw === "" && nested.some((entry) => /^\s+[^\s:#][^:]*:(\s|$)/.test(entry))) {
      if (key === "name" || key === "description")
        throw new SkillFileError(
          `invalid YAML: ${key}: invalid type: map, expected a string at line ${index + 1}`,
        );
      continue;
    }
    fields.set(key, scalar(raw, nested, index + 2));
  }
  return fields;
}

function scalar(raw: string, nested: string[], line: number): string {
  if (raw === "|" || raw === ">" || /^[|>][+-]?$/.test(raw)) {
    const body = nested.map((entry) => entry.replace(/^\s+/, ""));
    while (body.length > 0 && body.at(-1) === "") body.pop();
    return raw.startsWith("|") ? body.join("\n") : body.join(" ").replace(/\s+/g, " ").trim();
  }
  const quote = raw[0];
  if (quote === '"' || quote === "'") {
    const close = raw.lastIndexOf(quote);
    if (close <= 0)
      throw new SkillFileError(
        `invalid YAML: found unexpected end of stream at line ${line} column ${raw.length + 1}, while scanning a quoted scalar`,
      );
    const inner = raw.slice(1, close);
    return quote === "'" ? inner.replace(/''/g, "'") : unescapeDouble(inner);
  }
  const continued = nested.map((entry) => entry.trim()).filter((entry) => entry !== "");
  return [raw.replace(/\s+#.*$/, ""), ...continued].join(" ");
}

function unescapeDouble(text: string): string {
  return text.replace(/\\(["\\/nt])/g, (_, char: string) =>
    char === "n" ? "\n" : char === "t" ? "\t" : char,
  );
}
