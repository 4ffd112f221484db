/**
 * A working directory that cannot be one is refused before any turn runs: `exec -C` naming a
 * missing directory or a file, and the MCP `codex` tool's `cwd` when missing, a file or relative.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { callTool } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";

describe("exec -C", () => {
  const h = useExecHarness({ execArgs: ["--skip-git-repo-check"] });

  it("refuses a directory that does not exist, before asking the model", async () => {
    h.server.enqueue(turn(message("should not run")));
    const missing = join(h.work, "no-such-dir");
    const result = await h.exec(["-C", missing, "go"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`tscodex: -C ${missing} does not exist`);
    expect(result.stdout).toBe("");
    expect(h.server.requests).toHaveLength(0);
  });

  it("refuses a file", async () => {
    h.server.enqueue(turn(message("should not run")));
    const file = join(h.work, "a-file");
    await writeFile(file, "x");
    const result = await h.exec(["-C", file, "go"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`tscodex: -C ${file} is not a directory`);
    expect(h.server.requests).toHaveLength(0);
  });

  it("still runs in a directory given relative to the shell's", async () => {
    h.server.enqueue(turn(message("ran")));
    const result = await h.exec(["-C", ".", "go"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("ran\n");
  });
});

describe("the codex tool's cwd", () => {
  const h = useMcpHarness();

  it("refuses a missing directory, a file and a relative path, and runs nothing", async () => {
    const { client } = await h.connect();
    const file = join(h.work, "a-file");
    await writeFile(file, "x");
    const missing = join(h.work, "gone");
    const cases: [string, string][] = [
      [missing, `cwd ${missing} does not exist`],
      [file, `cwd ${file} is not a directory`],
      ["sub/dir", "cwd sub/dir is not an absolute path"],
    ];
    for (const [cwd, text] of cases) {
      const call = await callTool(client, "codex", { prompt: "go", cwd });
      expect(call.result.isError, cwd).toBe(true);
      expect(call.text).toBe(text);
    }
    const alias = await callTool(client, "codex", { prompt: "go", workingDirectory: "." });
    expect(alias.text).toBe("cwd . is not an absolute path");
    expect(h.model.requests).toHaveLength(0);

    h.model.enqueue(turn(message("fine")));
    expect((await callTool(client, "codex", { prompt: "go", cwd: h.work })).text).toBe("fine");
  });
});
