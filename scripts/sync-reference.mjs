// Keeps test/fixtures/reference/ in step with the team's Codex captures (../shared/reference,
// or $TSCODEX_REFERENCE_DIR): the tests read only the copies, so a clone runs every check alone.
// The files copied are the ones test/fixtures/reference/MANIFEST lists.
//
//   node scripts/sync-reference.mjs           copy the listed files, drop copies no longer listed
//   node scripts/sync-reference.mjs --check   exit 1 on any difference (copies are never written)
//
// Without the reference beside the repository, --check says it skipped the comparison and only
// checks that every listed file has its copy.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const copies = join(root, "test", "fixtures", "reference");
const manifestPath = join(copies, "MANIFEST");
const source = resolve(process.env.TSCODEX_REFERENCE_DIR ?? join(root, "..", "shared", "reference"));
const check = process.argv.includes("--check");
const say = (message) => console.log(`sync-reference: ${message}`);

/** MANIFEST entries: one relative path a line, `#` comments, `*` only within the file name. */
function manifest() {
  const entries = readFileSync(manifestPath, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
  for (const entry of entries) {
    if (entry.startsWith("/") || entry.split("/").includes("..") || dirname(entry).includes("*")) {
      throw new Error(`MANIFEST: ${entry}: want a relative path, with \`*\` only in the file name`);
    }
  }
  return entries;
}

/** The files under `base` the entries name, and the entries that name none. */
function expand(entries, base) {
  const files = new Set();
  const unmatched = [];
  for (const entry of entries) {
    const before = files.size;
    if (entry.includes("*")) {
      const dir = dirname(entry);
      const pattern = new RegExp(
        `^${entry
          .slice(dir.length + 1)
          .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
          .replaceAll("*", ".*")}$`,
      );
      const names = existsSync(join(base, dir)) ? readdirSync(join(base, dir)) : [];
      for (const name of names) {
        if (pattern.test(name) && statSync(join(base, dir, name)).isFile()) files.add(`${dir}/${name}`);
      }
    } else if (existsSync(join(base, entry)) && statSync(join(base, entry)).isFile()) {
      files.add(entry);
    }
    if (files.size === before) unmatched.push(entry);
  }
  return { files, unmatched };
}

/** Every copy under test/fixtures/reference (relative, `/`-separated), MANIFEST aside. */
function existingCopies(dir = copies) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return existingCopies(path);
    const rel = relative(copies, path).split(sep).join("/");
    return rel === "MANIFEST" ? [] : [rel];
  });
}

const entries = manifest();

if (!existsSync(source)) {
  const { files, unmatched } = expand(entries, copies);
  if (unmatched.length > 0) {
    for (const entry of unmatched)
      console.error(`sync-reference: listed in MANIFEST but not copied: ${entry}`);
    process.exit(1);
  }
  say(
    `skipped: ${source} is absent, so the ${files.size} copies in test/fixtures/reference stand as they are`,
  );
  process.exit(0);
}

const { files, unmatched } = expand(entries, source);
const problems = unmatched.map((entry) => `MANIFEST names no file of the reference: ${entry}`);
const changes = [];
for (const rel of [...files].sort()) {
  const want = readFileSync(join(source, rel));
  const copy = join(copies, rel);
  const have = existsSync(copy) ? readFileSync(copy) : null;
  if (have?.equals(want)) continue;
  changes.push(`${have ? "differs" : "missing"}: ${rel}`);
  if (!check) {
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, want);
  }
}
for (const rel of existingCopies().filter((rel) => !files.has(rel))) {
  changes.push(`not listed in MANIFEST: ${rel}`);
  if (!check) {
    rmSync(join(copies, rel));
    // Drop directories the removal emptied.
    for (
      let dir = dirname(join(copies, rel));
      dir !== copies && readdirSync(dir).length === 0;
      dir = dirname(dir)
    ) {
      rmdirSync(dir);
    }
  }
}

for (const problem of problems) console.error(`sync-reference: ${problem}`);
if (check) {
  for (const change of changes) console.error(`sync-reference: ${change}`);
  if (problems.length > 0 || changes.length > 0) {
    console.error(
      "sync-reference: test/fixtures/reference has drifted from the reference; run `node scripts/sync-reference.mjs`",
    );
    process.exit(1);
  }
  say(`${files.size} copies match ${source}`);
} else {
  for (const change of changes) say(`${change.startsWith("not listed") ? "removed" : "copied"} (${change})`);
  say(`${files.size} files in step with ${source}`);
  if (problems.length > 0) process.exit(1);
}
