/**
 * codex-mcp-server (the npm package that wraps the `codex` CLI in an MCP server) with a `codex`
 * on its PATH that is tscodex (`npm run build` first): its `codex` tool (and a `sessionId`
 * follow-up, which it runs as `exec ... resume ID PROMPT` after reading the session id from our
 * stderr), its `review` tool (`-C DIR -c model=... review --uncommitted`) and its `websearch`
 * tool (`--search exec ...`), each against the fake model server.
 */
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn, webSearchCall } from "../support/fake-model-server.js";
import { writeCodexShim } from "./sdk-shim.js";

const h = useExecHarness();
const SERVER = createRequire(import.meta.url).resolve("codex-mcp-server/dist/index.js");

async function connect(): Promise<Client> {
  const bin = join(h.home, "bin");
  await writeCodexShim(bin);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    env: { ...h.libraryEnv(), PATH: `${bin}:${process.env.PATH ?? ""}`, TSCODEX_HOME: h.home },
    cwd: h.work,
    stderr: "pipe",
  });
  const client = new Client({ name: "tscodex-drop-in-test", version: "0.0.1" });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = CallToolResultSchema.parse(await client.callTool({ name, arguments: args }));
  const first = result.content[0];
  return { isError: result.isError ?? false, text: first?.type === "text" ? first.text : "" };
}

describe("codex-mcp-server with tscodex as its codex", () => {
  it("codex (with a sessionId follow-up), review and websearch all succeed", async () => {
    const client = await connect();
    try {
      h.server.enqueue(turn(message("first answer")), turn(message("follow-up answer")));
      const first = await call(client, "codex", {
        prompt: "remember kiwi",
        sessionId: "s1",
        workingDirectory: h.work,
      });
      expect(first).toMatchObject({ isError: false });
      expect(first.text).toContain("first answer");
      const second = await call(client, "codex", { prompt: "which fruit?", sessionId: "s1" });
      expect(second.text).toContain("follow-up answer");
      // The follow-up resumed the same thread: its request carries the first turn.
      const resumed = JSON.stringify(h.server.requests[1]?.input);
      expect(resumed).toContain("remember kiwi");
      expect(resumed).toContain("first answer");

      await writeFile(join(h.work, "a.txt"), "one\n");
      execFileSync(
        "git",
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x", "--allow-empty"],
        {
          cwd: h.work,
        },
      );
      const findings = {
        findings: [
          {
            title: "[P2] a.txt is untracked",
            body: "Add it or ignore it.",
            confidence_score: 0.5,
            priority: 2,
            code_location: { absolute_file_path: join(h.work, "a.txt"), line_range: { start: 1, end: 1 } },
          },
        ],
        overall_correctness: "patch is correct",
        overall_explanation: "Fine.",
        overall_confidence_score: 0.7,
      };
      h.server.enqueue(turn(message(JSON.stringify(findings))));
      const review = await call(client, "review", { uncommitted: true, workingDirectory: h.work });
      expect(review.isError).toBe(false);
      expect(review.text).toContain("[P2] a.txt is untracked");
      expect(JSON.stringify(h.server.requests[2]?.input)).toContain("+one");

      h.server.enqueue(turn(webSearchCall("tscodex drop-in"), message("search results")));
      const search = await call(client, "websearch", { query: "tscodex drop-in" });
      expect(search.text).toContain("search results");
      const tools = (h.server.requests[3]?.body.tools ?? []) as {
        type: string;
        external_web_access?: boolean;
      }[];
      expect(tools.find((tool) => tool.type === "web_search")?.external_web_access).toBe(true);
    } finally {
      await client.close();
    }
  });
});
