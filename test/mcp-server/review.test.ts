/**
 * The MCP server's `review` tool (`npm run build` first): a scripted repo's uncommitted change
 * reviewed on a read-only thread; the result is the readable review, and its structuredContent
 * the findings as Codex structures them. Also: top-level options before `mcp-server`.
 */
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { message, turn } from "../support/fake-model-server.js";
import { callTool } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";

const h = useMcpHarness();

describe("the review tool", () => {
  it("reviews uncommitted changes read-only and returns the findings", async () => {
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: h.work });
    git("init", "-q");
    await writeFile(join(h.work, "f.py"), "x = 1\n");
    git("add", ".");
    git("commit", "-qm", "x");
    await writeFile(join(h.work, "f.py"), "x = 1 / 0\n");
    const review = {
      findings: [
        {
          title: "[P0] division by zero at import",
          body: "Importing f.py raises ZeroDivisionError.",
          confidence_score: 1,
          priority: 0,
          code_location: { absolute_file_path: join(h.work, "f.py"), line_range: { start: 1, end: 1 } },
        },
      ],
      overall_correctness: "patch is incorrect",
      overall_explanation: "The module can no longer be imported.",
      overall_confidence_score: 0.95,
    };
    h.model.enqueue(turn(message(JSON.stringify(review))));
    const { client } = await h.connect();
    const { result, text, threadId } = await callTool(client, "review", { uncommitted: true, cwd: h.work });
    expect(result.isError).toBeFalsy();
    expect(text).toContain("- [P0] division by zero at import");
    expect(text).toContain(`${join(h.work, "f.py")}:1`);
    expect(result.structuredContent).toMatchObject({ threadId, review });
    const sent = JSON.stringify(h.model.requests[0]?.input);
    expect(sent).toContain("+x = 1 / 0");
    expect(sent).toContain("sandbox_mode=read-only");

    const conflicting = await callTool(client, "review", { uncommitted: true, prompt: "look at x" });
    expect(conflicting.result.isError).toBe(true);
    expect(conflicting.text).toContain("cannot be combined with --uncommitted");
  });

  it("takes top-level options before the subcommand: tscodex -c k=v mcp-server", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_PATH, "-c", 'model="top-level-model"', "mcp-server"],
      env: { PATH: process.env.PATH ?? "", HOME: h.home, TSCODEX_HOME: h.home, FAKE_KEY: "sk-test" },
      cwd: h.work,
      stderr: "pipe",
    });
    const client = new Client({ name: "tscodex-test", version: "0.0.1" });
    await client.connect(transport);
    try {
      h.model.enqueue(turn(message("ok")));
      const { text } = await callTool(client, "codex", { prompt: "hi", cwd: h.work });
      expect(text).toBe("ok");
      expect(h.model.requests[0]?.body.model).toBe("top-level-model");
    } finally {
      await client.close();
    }
  });
});
