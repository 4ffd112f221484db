/**
 * `tscodex exec` under the operator's ceiling (requirements.toml in the home): a sandbox mode or
 * approval policy above it, from a flag or a config value, is refused with the requirement named,
 * exit 1, before any model request; a default nobody chose moves inside it; without the file,
 * everything runs as before. And `tscodex proxy`, whose configured sandbox serves every request
 * (it does not start above the ceiling), and `tscodex sandbox` (it runs nothing above it).
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";

const h = useExecHarness({ execArgs: ["--skip-git-repo-check"] });

async function requirements(text: string): Promise<string> {
  const path = join(h.home, "requirements.toml");
  await writeFile(path, text);
  return path;
}

describe("exec under requirements.toml", () => {
  it("refuses -s, --dangerously-bypass-approvals-and-sandbox, -a and config values above the ceiling, asking the model nothing", async () => {
    const file = await requirements(
      'allowed_sandbox_modes = ["read-only", "workspace-write"]\nallowed_approval_policies = ["on-request", "untrusted"]\n',
    );
    const sandbox = `sandbox mode \`danger-full-access\` is not allowed by requirements.toml (allowed_sandbox_modes = read-only, workspace-write) at ${file}`;
    const approval = `approval policy \`never\` is not allowed by requirements.toml (allowed_approval_policies = on-request, untrusted) at ${file}`;
    const cases: [string[], string][] = [
      [["-s", "danger-full-access", "go"], sandbox],
      [["--dangerously-bypass-approvals-and-sandbox", "go"], sandbox],
      [["-c", 'sandbox_mode="danger-full-access"', "go"], sandbox],
      [["-a", "never", "go"], approval],
      [["-c", 'approval_policy="never"', "go"], approval],
    ];
    for (const [args, refusal] of cases) {
      const result = await h.exec(args);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr, args.join(" ")).toContain(refusal);
      expect(result.stdout, args.join(" ")).toBe("");
    }
    expect(h.server.requests).toHaveLength(0);
  });

  it("runs within the ceiling, exec's own default approval (never) moved to the first one allowed", async () => {
    await requirements('allowed_approval_policies = ["on-request", "untrusted"]\n');
    h.server.enqueue(turn(message("done")));
    const result = await h.exec(["-s", "workspace-write", "go"]);
    expect(result.stderr).not.toContain("not allowed");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("done");
    expect(h.server.requests).toHaveLength(1);
  });

  it("refuses to run with a malformed requirements.toml, naming the file", async () => {
    const file = await requirements("allowed_sandbox_modes = 3\n");
    const result = await h.exec(["go"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}: allowed_sandbox_modes: `);
    expect(h.server.requests).toHaveLength(0);
  });

  it("runs as before without requirements.toml", async () => {
    h.server.enqueue(turn(message("full")));
    const result = await h.exec(["-s", "danger-full-access", "-a", "never", "go"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("full");
  });
});

describe("proxy under requirements.toml", () => {
  it("does not start with a configured sandbox above the ceiling", async () => {
    const file = await requirements('allowed_sandbox_modes = ["read-only", "workspace-write"]\n');
    const result = await h.cli(["proxy", "--port", "0", "-c", 'sandbox_mode="danger-full-access"']);
    // Like every refusal to start a server (serve.ts failStart).
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `sandbox mode \`danger-full-access\` is not allowed by requirements.toml (allowed_sandbox_modes = read-only, workspace-write) at ${file}`,
    );
    expect(result.stderr).not.toContain("listening");
  });
});

describe("tscodex sandbox under requirements.toml", () => {
  it("runs nothing above the ceiling, whether asked with -s or -P", async () => {
    const file = await requirements('allowed_sandbox_modes = ["read-only", "workspace-write"]\n');
    const marker = join(h.work, "ran");
    for (const choice of [
      ["-s", "danger-full-access"],
      ["-P", ":danger-full-access"],
    ]) {
      const result = await h.cli(["sandbox", ...choice, "--", "touch", marker]);
      expect(result.code, choice.join(" ")).toBe(1);
      expect(result.stderr, choice.join(" ")).toContain(
        `tscodex sandbox: sandbox mode \`danger-full-access\` is not allowed by requirements.toml (allowed_sandbox_modes = read-only, workspace-write) at ${file}`,
      );
    }
    expect(existsSync(marker)).toBe(false);
  });
});
