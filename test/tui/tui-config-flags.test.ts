/**
 * Codex 0.171's config-loading flags on the terminal UI (tmux, fake model), as exec has them
 * (test/cli/codex-config-flags.test.ts): `-p NAME` layers `$home/NAME.config.toml`,
 * `--oss --local-provider lmstudio`, `--ignore-user-config`, `--ignore-rules`.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();
const open = useTmuxTerminal(h);

describe("config flags of the terminal UI", () => {
  it("-p NAME layers NAME.config.toml over config.toml", async () => {
    await writeFile(join(h.home, "work.config.toml"), 'model = "gpt-from-profile-file"\n');
    h.server.enqueue(turn(message("profiled")));
    const t = await open(["-p", "work", "hi"]);
    await t.waitFor("profiled");
    expect(h.server.requests[0]?.body.model).toBe("gpt-from-profile-file");
  });

  it("--oss --local-provider lmstudio: LM Studio's Responses API and model", async () => {
    h.server.enqueue(turn(message("from lmstudio")));
    const t = await open(["--oss", "--local-provider", "lmstudio", "hi"], {
      env: { CODEX_OSS_BASE_URL: h.server.url },
    });
    await t.waitFor("from lmstudio");
    expect(h.server.requests[0]?.path).toBe("/v1/responses");
    expect(h.server.requests[0]?.body.model).toBe("openai/gpt-oss-20b");
  });

  it("--ignore-user-config and --ignore-rules reach the UI's server", async () => {
    await h.writeConfig({ extra: 'developer_instructions = "FROM-USER-CONFIG"' });
    await mkdir(join(h.home, "rules"));
    await writeFile(
      join(h.home, "rules", "default.rules"),
      'prefix_rule(pattern = ["touch", "ruled.txt"], decision = "forbidden", justification = "RULES-SAY-NO")\n',
    );
    const provider = `model_providers.mockcli={ name = "mockcli", base_url = "${h.server.url}", wire_api = "responses", env_key = "FAKE_KEY" }`;
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "touch ruled.txt" }, "c1")),
      turn(message("made it")),
    );
    const t = await open([
      "--ignore-user-config",
      "--ignore-rules",
      "-s",
      "danger-full-access",
      "-c",
      'model_provider="mockcli"',
      "-c",
      provider,
      "make the file",
    ]);
    await t.waitFor("made it");
    expect(h.server.requests[0]?.rawBody).not.toContain("FROM-USER-CONFIG");
    expect(h.outputOf(1, "c1")).not.toContain("RULES-SAY-NO");
    expect(existsSync(join(h.work, "ruled.txt"))).toBe(true);
  });
});
