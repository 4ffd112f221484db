/**
 * The CLI's listings, error and warning lines show terminal escapes from outside instead of
 * writing them (issue 37): a cloned repo's SKILL.md, hooks.json, memories and directory names,
 * config.toml entries, an MCP server's stderr, an authorization server's error and a model
 * server's error text reach the terminal in caret notation; `--json` stays exact; `memories
 * show` (data) is exact when redirected and shown visibly on a terminal.
 */
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeHooksJson } from "../hooks/hook-fixtures.js";
import { useExecHarness } from "../support/exec-harness.js";
import { httpError, message, turn } from "../support/fake-model-server.js";
import { cliStdoutOnPty } from "../support/pty.js";
import { tmpdir } from "../support/tmpdir.js";

const h = useExecHarness({ key: "k", execArgs: ["--skip-git-repo-check"] });

const ESC = "\u001b";
/** Retitles the window, writes the clipboard, then returns and erases the line to hide it all. */
const HOSTILE = `${ESC}]2;pwned\u0007${ESC}]52;c;aGk=\u0007\r${ESC}[2Kinnocent \u009b2J`;
const HOSTILE_SHOWN = "^[]2;pwned^G^[]52;c;aGk=^G^M^[[2Kinnocent <U+009B>2J";

/** A JSON string is a TOML basic string (the same escapes). */
const toml = (text: string) => JSON.stringify(text);

/** The controls a terminal acts on in `text`: C0 but newline, DEL, C1. */
function rawControls(text: string): string[] {
  return [...text].filter((char) => {
    const code = char.charCodeAt(0);
    return (code < 0x20 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f);
  });
}

function expectNoRawControls(text: string): void {
  expect(rawControls(text), JSON.stringify(text)).toEqual([]);
}

describe("terminal escapes in the CLI's listings and errors", () => {
  it("skills list shows a project SKILL.md's escapes; --json stays exact", async () => {
    const dir = join(h.work, ".agents", "skills", "x");
    await mkdir(dir, { recursive: true });
    // A block scalar keeps its line as written, CR and all.
    await writeFile(join(dir, "SKILL.md"), `---\nname: x\ndescription: |\n  fine ${HOSTILE}\n---\n\n# x\n`);
    const listed = await h.cli(["skills", "list"]);
    expect(listed.code).toBe(0);
    expectNoRawControls(listed.stdout);
    expectNoRawControls(listed.stderr);
    expect(listed.stdout).toContain(`x: fine ${HOSTILE_SHOWN}`);
    const json = await h.cli(["skills", "list", "--json"]);
    expect((JSON.parse(json.stdout) as { description: string }[])[0]?.description).toBe(`fine ${HOSTILE}`);
  });

  it("a SKILL.md the parser rejects is named on stderr with its directory's escapes shown", async () => {
    const dir = join(h.work, ".agents", "skills", `y${HOSTILE}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "SKILL.md"), '---\nname: y\ndescription: "unclosed\n---\n\n# y\n');
    const listed = await h.cli(["skills", "list"]);
    expect(listed.stderr).toContain("failed to load skill");
    expectNoRawControls(listed.stderr);
    expect(listed.stderr).toContain(`y${HOSTILE_SHOWN}`);
  });

  it("mcp list and get show a server's escapes (command, args, cwd, tools); --json stays exact", async () => {
    await appendFile(
      join(h.home, "config.toml"),
      `\n[mcp_servers.evil]\ncommand = ${toml(`run${HOSTILE}`)}\nargs = [${toml(`--flag${HOSTILE}`)}]\ncwd = ${toml(`/tmp${HOSTILE}`)}\nenabled_tools = [${toml(`tool${HOSTILE}`)}]\n`,
    );
    const listed = await h.cli(["mcp", "list"]);
    expect(listed.code).toBe(0);
    expectNoRawControls(listed.stdout);
    expect(listed.stdout).toContain(`run${HOSTILE_SHOWN} --flag${HOSTILE_SHOWN}`);

    const got = await h.cli(["mcp", "get", "evil"]);
    expect(got.code).toBe(0);
    expectNoRawControls(got.stdout);
    expect(got.stdout).toContain(`command: run${HOSTILE_SHOWN}`);
    expect(got.stdout).toContain(`cwd: /tmp${HOSTILE_SHOWN}`);
    expect(got.stdout).toContain(`enabled_tools: tool${HOSTILE_SHOWN}`);

    const missing = await h.cli(["mcp", "get", `nope${HOSTILE}`]);
    expect(missing.code).toBe(1);
    expectNoRawControls(missing.stderr);
    expect(missing.stderr).toContain(`nope${HOSTILE_SHOWN}`);

    const json = await h.cli(["mcp", "get", "evil", "--json"]);
    const view = JSON.parse(json.stdout) as { name: string; transport: { command: string } };
    expect(view).toMatchObject({ name: "evil", transport: { command: `run${HOSTILE}` } });
  });

  it("mcp list names a config.toml key it rejects with the key's escapes shown", async () => {
    await appendFile(
      join(h.home, "config.toml"),
      `\n[mcp_servers.${toml(`evil${HOSTILE}`)}]\ncommand = "x"\n`,
    );
    const listed = await h.cli(["mcp", "list"]);
    expect(listed.code).toBe(1);
    expectNoRawControls(listed.stderr);
    expect(listed.stderr).toContain(`evil${HOSTILE_SHOWN}`);
  });

  it("mcp login's failure shows the escapes of the authorization server's error", async () => {
    // One server as MCP endpoint and authorization server; it refuses the client registration.
    const server = createServer((req, res) => {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      if (req.url === "/.well-known/oauth-authorization-server") {
        const metadata = {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ["code"],
        };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(metadata));
      } else if (req.url === "/register") {
        const refusal = { error: "invalid_client_metadata", error_description: `refused ${HOSTILE}` };
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify(refusal));
      } else if (req.url === "/mcp") res.writeHead(401).end();
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      await appendFile(join(h.home, "config.toml"), `\n[mcp_servers.remote]\nurl = "${url}"\n`);
      const result = await h.cli(["mcp", "login", "remote", "--no-browser"]);
      expect(result.code).toBe(1);
      expectNoRawControls(result.stderr);
      expect(result.stderr).toContain(`refused ${HOSTILE_SHOWN}`);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("hooks list and trust show a hook command's escapes; --json stays exact", async () => {
    const command = `true # ${HOSTILE}`;
    await writeHooksJson(h.home, { PreToolUse: [{ matcher: "Bash", command }] });
    const listed = await h.cli(["hooks", "list"]);
    expect(listed.code).toBe(0);
    expectNoRawControls(listed.stdout);
    expect(listed.stdout).toContain(`command: true # ${HOSTILE_SHOWN}`);
    const json = await h.cli(["hooks", "list", "--json"]);
    expect((JSON.parse(json.stdout) as { command: string }[])[0]?.command).toBe(command);
    const trusted = await h.cli(["hooks", "trust", "--all"]);
    expect(trusted.code).toBe(0);
    expectNoRawControls(trusted.stdout);
    expect(trusted.stdout).toContain(HOSTILE_SHOWN);
  });

  it("hooks list names a hook it ignores with the matcher's escapes shown", async () => {
    await writeHooksJson(h.home, { PreToolUse: [{ matcher: `Ba${HOSTILE}`, command: "true" }] });
    const listed = await h.cli(["hooks", "list"]);
    expect(listed.stderr).toContain("invalid matcher");
    expectNoRawControls(listed.stderr);
    expect(listed.stderr).toContain(`Ba${HOSTILE_SHOWN}`);
  });

  it("memories list shows a project memory's summary visibly; show is exact when redirected, visible on a terminal", async () => {
    const dir = join(h.work, ".tscodex", "memories");
    await mkdir(dir, { recursive: true });
    const text = `Summary ${HOSTILE}\nBody ${HOSTILE}\n`;
    await writeFile(join(dir, "note.md"), text);
    const listed = await h.cli(["memories", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`Summary ${HOSTILE_SHOWN}`);
    expectNoRawControls(listed.stdout.replaceAll("\t", " ")); // tabs separate its columns
    expect((await h.cli(["memories", "show", "note"])).stdout).toBe(text);
    const env = { HOME: h.home, TSCODEX_HOME: h.home };
    const onPty = await cliStdoutOnPty(["memories", "show", "note"], { cwd: h.work, env });
    expect(onPty.code).toBe(0);
    // The pty turns each newline into CR LF: only those CRs are the terminal's.
    expectNoRawControls(onPty.stdout.replaceAll("\r\n", "\n"));
    expect(onPty.stdout).toContain(`Body ${HOSTILE_SHOWN}`);
  });

  it("exec's own error lines show the escapes of a directory's name", async () => {
    const outside = await tmpdir(); // not in a git repository
    try {
      const dir = join(outside.path, `unpacked${HOSTILE}`);
      await mkdir(dir);
      const result = await h.cli(["exec", "go"], { cwd: dir });
      expect(result.code).toBe(1);
      expectNoRawControls(result.stderr);
      expect(result.stderr).toContain(`unpacked${HOSTILE_SHOWN} is not inside a git repository`);
    } finally {
      await outside.cleanup();
    }
  });

  it("exec's config warnings show the escapes of an unknown key", async () => {
    const config = join(h.home, "config.toml");
    await writeFile(config, `${toml(`odd${HOSTILE}`)} = 1\n${await readFile(config, "utf8")}`);
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    expectNoRawControls(result.stderr);
    expect(result.stderr).toContain(`unknown key 'odd${HOSTILE_SHOWN}' (ignored)`);
  });

  it("review's, memories' and sessions' error lines show the escapes their messages quote", async () => {
    const review = await h.cli(["review", "--commit", `x${HOSTILE}`]);
    expect(review.stderr).toContain("tscodex review: git show");
    expectNoRawControls(review.stderr);
    const memory = await h.cli(["memories", "show", `x${HOSTILE}`]);
    expect(memory.code).toBe(1);
    expectNoRawControls(memory.stderr);
    expect(memory.stderr).toContain(`no memory with id 'x${HOSTILE_SHOWN}'`);
    const session = await h.cli(["sessions", "show", `x${HOSTILE}`]);
    expect(session.code).toBe(1);
    expectNoRawControls(session.stderr);
    expect(session.stderr).toContain(`no stored thread with id x${HOSTILE_SHOWN}`);
  });

  it("exec names an MCP server that died at startup with its stderr's escapes shown, --json too", async () => {
    const script = "printf 'dying \\033]2;pwned\\007 \\302\\2332J\\n' >&2; exit 1";
    await appendFile(
      join(h.home, "config.toml"),
      `\n[mcp_servers.dies]\ncommand = "sh"\nargs = ["-c", ${toml(script)}]\n`,
    );
    for (const mode of [[], ["--json"]]) {
      h.server.enqueue(turn(message("ok")));
      const result = await h.exec([...mode, "go"]);
      expect(result.code, result.stderr).toBe(0);
      expectNoRawControls(result.stderr);
      expect(result.stderr).toContain("(stderr: dying ^[]2;pwned^G <U+009B>2J)");
    }
  });

  it("exec's error line shows the escapes of a model server's error body", async () => {
    h.server.enqueue(httpError(400, `bad request ${HOSTILE}`));
    const result = await h.exec(["go"]);
    expect(result.code).not.toBe(0);
    expectNoRawControls(result.stderr);
    expect(result.stderr).toContain(`bad request ${HOSTILE_SHOWN}`);
  });
});
