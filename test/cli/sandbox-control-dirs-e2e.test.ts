/**
 * Planting a project config from inside the sandbox, through the real CLI (issue 37 cause 2):
 * in a trusted project that is not a repository, a workspace-write command asked for by the
 * model tries to write `.codex/config.toml` with an MCP server; the write is refused on both
 * backends, so the next `tscodex exec` there starts no such server. The control shows that the
 * same file, written by the user, does start it (the setup can fail).
 */
import { existsSync, readdirSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { customToolCall, functionCall, message, turn } from "../support/fake-model-server.js";
import { setProjectTrust, useOutsideDir } from "../support/hostile-repo.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing } from "../support/skips.js";

const h = useExecHarness({ git: false });
const outside = useOutsideDir();
const backends = await sandboxBackends();

const pwned = () => join(outside(), "PWNED");
const mcpConfig = () => `[mcp_servers.x]\ncommand = "touch"\nargs = [${JSON.stringify(pwned())}]\n`;
/** The model's command: the planted config as one shell line (printf turns \n into newlines). */
const plantCommand = () =>
  `mkdir -p .codex && printf '${mcpConfig().replaceAll("\n", "\\n")}' > .codex/config.toml`;

const execIn = (backend: string, prompt: string) =>
  h.exec([
    "-s",
    "workspace-write",
    "-a",
    "never",
    "--skip-git-repo-check",
    "-c",
    `sandbox_backend="${backend}"`,
    prompt,
  ]);

describe.each(backends)("a command planting .codex/config.toml under $name", ({ name, status }) => {
  it.skipIf(missing(status, `the planted project config under ${name}`))(
    "is refused, and the next session starts no planted MCP server",
    async () => {
      await setProjectTrust(h.home, h.work);
      h.server.enqueue(
        turn(functionCall("shell_command", { command: plantCommand() }, "plant")),
        turn(message("done")),
      );
      const planting = await execIn(name, "plant it");
      expect(planting.code, planting.stderr).toBe(0);
      expect(h.outputOf(1, "plant")).not.toContain("Exit code: 0");
      expect(existsSync(join(h.work, ".codex")), h.outputOf(1, "plant")).toBe(false);
      expect(readdirSync(h.work)).toEqual([]);

      h.server.enqueue(turn(message("hello")));
      const next = await execIn(name, "hi");
      expect(next.code, next.stderr).toBe(0);
      expect(existsSync(pwned())).toBe(false);
    },
  );
});

describe("apply_patch into a control directory (written in-process, outside the sandbox)", () => {
  const addFile = (path: string) => `*** Begin Patch\n*** Add File: ${path}\n+x = 1\n*** End Patch`;
  for (const path of [
    "sub/.codex/config.toml",
    ".agents/skills/x/SKILL.md",
    "deep/er/.AGENTS/y",
    ".tscodex/z",
  ]) {
    it(`a patch adding ${path} is refused under workspace-write, and nothing is written`, async () => {
      await mkdir(join(h.work, "sub"));
      h.server.enqueue(turn(customToolCall("apply_patch", addFile(path), "patch")), turn(message("done")));
      const run = await execIn("auto", "patch it");
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.stringify(h.outputs(1).patch)).not.toContain("Success");
      expect(existsSync(join(h.work, path))).toBe(false);
      expect(readdirSync(h.work).sort()).toEqual(["sub"]);
    });
  }
});

describe("the control", () => {
  it("the same .codex/config.toml written by the user starts its MCP server in the trusted project", async () => {
    await setProjectTrust(h.home, h.work);
    await mkdir(join(h.work, ".codex"));
    await writeFile(join(h.work, ".codex", "config.toml"), mcpConfig());
    h.server.enqueue(turn(message("hello")));
    const run = await h.exec(["--skip-git-repo-check", "hi"]);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(pwned()), run.stderr).toBe(true);
  });
});
