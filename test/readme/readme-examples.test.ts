/**
 * The README's examples, copied out of README.md and checked, so they cannot drift:
 * - TypeScript blocks typecheck under the project's strict settings against the built package
 *   (`import ... from "tscodex"` resolves to this package's own exports). A block that continues
 *   an earlier one names what it assumes in a `<!-- readme-check: ... -->` line just above it.
 * - TOML blocks are loaded by the config loader as config.toml: no error, no unknown key.
 * - `tscodex` command lines of the sh blocks name commands and flags the CLI has, and the
 *   `tscodex exec` examples run as written against the fake model.
 */
import { execFile } from "node:child_process";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { loadRequirements } from "../../src/config/requirements.js";
import { CLI_PATH, runCli } from "../support/cli.js";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

interface Block {
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** The `<!-- readme-check: ... -->` text just above the fence, if any. */
  preamble: string;
}

function readmeBlocks(text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(\w+)/.exec(lines[index] ?? "");
    if (!open) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !(lines[index] ?? "").startsWith("```"); index++)
      body.push(lines[index] ?? "");
    const above = /^<!-- readme-check: (.*) -->$/.exec(lines[start - 1] ?? "");
    blocks.push({ lang: open[1] ?? "", line: start + 1, code: body.join("\n"), preamble: above?.[1] ?? "" });
  }
  return blocks;
}

const blocks = readmeBlocks(await readFile(join(root, "README.md"), "utf8"));
const ofLang = (lang: string) => blocks.filter((block) => block.lang === lang);

function run(command: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

describe("README TypeScript examples", () => {
  // Inside the package, so `tscodex`, `openai` and the SDK resolve as they would for a user.
  const dir = join(root, `.tscodex-test-readme-${process.pid}`);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("typecheck under strict", { timeout: 120_000 }, async () => {
    const ts = ofLang("ts");
    expect(ts.length).toBeGreaterThanOrEqual(4);
    await mkdir(dir, { recursive: true });
    const files: string[] = [];
    for (const block of ts) {
      const file = `readme-line-${block.line}.ts`;
      // Each block is its own module (top-level await, its own names).
      await writeFile(join(dir, file), `${block.preamble}\n${block.code}\nexport {};\n`);
      files.push(file);
    }
    await writeFile(
      join(dir, "tsconfig.json"),
      JSON.stringify({ extends: "../tsconfig.json", compilerOptions: { noEmit: true }, include: [], files }),
    );
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const result = await run(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")], dir);
    expect(result.output.replaceAll(`${dir}/`, "README ").trim()).toBe("");
    expect(result.code).toBe(0);
  });
});

describe("README TOML examples", () => {
  it("load as config.toml with no error and no unknown key", async () => {
    const toml = ofLang("toml");
    expect(toml.length).toBeGreaterThanOrEqual(3);
    const home = join(root, `.tscodex-test-readme-toml-${process.pid}`);
    await mkdir(home, { recursive: true });
    try {
      for (const block of toml) {
        // A requirements.toml example is read by the requirements loader, from the home alone.
        if (block.preamble === "requirements.toml") {
          await writeFile(join(home, "requirements.toml"), block.code);
          const requirements = await loadRequirements(home, []);
          expect(requirements?.warnings, `README line ${block.line}`).toEqual([]);
          await rm(join(home, "requirements.toml"));
          continue;
        }
        await writeFile(join(home, "config.toml"), block.code);
        const config = await loadConfig({ home, env: {} });
        expect(config.warnings, `README line ${block.line}`).toEqual([]);
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

/** The `tscodex ...` invocations of the sh blocks, comments and `[optional]` parts removed. */
function tscodexCommands(): { line: number; words: string[] }[] {
  const found: { line: number; words: string[] }[] = [];
  for (const block of ofLang("sh")) {
    block.code.split("\n").forEach((text, offset) => {
      for (const part of text.replace(/\s+#.*$/, "").split(" · ")) {
        const at = part.search(/(^|[\s|(])tscodex /);
        if (at < 0) continue;
        const words = part
          .slice(at)
          .trim()
          .replace(/\[([^\]]*)\]/g, "$1")
          .split(/\s+/);
        found.push({ line: block.line + offset + 1, words });
      }
    });
  }
  return found;
}

describe("README command lines", () => {
  const h = useExecHarness({ key: "k" });

  // One `--help` run per command path the README names (about 30): a while on a loaded machine.
  it("name commands and flags the CLI has", { timeout: 120_000 }, async () => {
    const commands = tscodexCommands();
    expect(commands.length).toBeGreaterThan(20);
    const helpOf = new Map<string, string>();
    const help = async (path: string[]) => {
      const key = path.join(" ");
      if (!helpOf.has(key)) {
        const result = await runCli([...path, "--help"], { cwd: h.work, home: h.home });
        helpOf.set(key, result.code === 0 ? result.stdout : "");
      }
      return helpOf.get(key) ?? "";
    };
    const topLevel = await help([]);
    for (const { line, words } of commands) {
      // The command path: the words after `tscodex` that the help lists as subcommands.
      const path: string[] = [];
      for (const word of words.slice(1)) {
        const parent = await help(path);
        if (!new RegExp(`^  ${word}\\b`, "m").test(parent.split("Commands:")[1] ?? "")) break;
        path.push(word);
      }
      const own = await help(path);
      expect(own, `README line ${line}: tscodex ${path.join(" ")} --help`).toContain("Usage: tscodex");
      // Options up to `--` (what follows is another program's command line).
      const ownWords = words.includes("--") ? words.slice(0, words.indexOf("--")) : words;
      const flags = ownWords
        .filter((word) => /^--?[A-Za-z]/.test(word))
        .map((word) => word.split("=")[0] ?? "");
      for (const flag of flags) {
        const listed = new RegExp(`(^|[ ,])${flag}\\b`, "m");
        const where = `README line ${line}: ${flag} of tscodex ${path.join(" ")}`;
        expect(listed.test(own) || listed.test(topLevel), where).toBe(true);
      }
    }
  });

  it("the `tscodex exec` examples run as written against the fake model", { timeout: 120_000 }, async () => {
    const examples = ofLang("sh")
      .flatMap((block) => block.code.split("\n"))
      .map((text) => text.replace(/\s+#.*$/, ""))
      .filter((text) => /^(echo .* \| )?tscodex exec\b/.test(text) && !text.includes("resume"))
      .filter((text) => !/--enable collab/.test(text));
    expect(examples.length).toBeGreaterThanOrEqual(7);
    // `tscodex` on PATH as the README says to set it up; the files and directories the examples name.
    const bin = join(h.work, "bin");
    await mkdir(bin);
    await writeFile(join(bin, "tscodex"), `#!/bin/sh\nexec "${process.execPath}" "${CLI_PATH}" "$@"\n`);
    await chmod(join(bin, "tscodex"), 0o755);
    const repo = join(h.work, "repo");
    for (const dir of [repo, join(h.work, "other-repo")]) {
      await mkdir(dir);
      await run("git", ["init", "-q"], dir);
    }
    // A 1x1 PNG for `-i screenshot.png`.
    const png =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    await writeFile(join(repo, "screenshot.png"), Buffer.from(png, "base64"));
    for (const example of examples) {
      h.server.reset();
      h.server.enqueue(turn(message("done")));
      const env = {
        PATH: `${bin}:${process.env.PATH ?? ""}`,
        HOME: h.home,
        TSCODEX_HOME: h.home,
        FAKE_KEY: "k",
        // `--oss`: the local provider, here the fake model (it speaks the chat wire too).
        CODEX_OSS_BASE_URL: h.server.url,
      };
      const result = await new Promise<{ code: number; output: string }>((resolve) => {
        const child = execFile("sh", ["-c", example], { cwd: repo, env }, (error, stdout, stderr) => {
          resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
        });
        child.stdin?.end();
      });
      expect(result.code, `${example}\n${result.output}`).toBe(0);
      expect(h.server.requests, example).toHaveLength(1);
    }
  });
});
