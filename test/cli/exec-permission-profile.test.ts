/**
 * `tscodex exec` under `default_permissions` (issue 39; reference permissions-network.md §6, §7):
 * the model's commands run behind the managed proxy with no feature flag; the model reads the
 * command's own output followed by which host was refused and why (Codex gives it only the block
 * message); `-s` for one run wins over the profile (legacy, no network at all).
 */
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { noSandbox, requireProgram } from "../support/skips.js";

const PROFILE = `
default_permissions = "web"
[permissions.web]
extends = ":workspace"
[permissions.web.network]
enabled = true
allow_local_binding = true
[permissions.web.network.domains]
"allowed.bar.test" = "allow"
`;

const h = useExecHarness({ config: { extra: PROFILE } });
const unsandboxed = await noSandbox("exec under a permission profile");

let target: Server;
let port = 0;
beforeAll(async () => {
  target = createServer((request, response) => response.end(`hello from ${request.headers.host}\n`));
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  port = (target.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => target.close(resolve));
});

async function runFetch(args: string[]): Promise<{ code: number | null; stderr: string; output: string }> {
  const hosts = join(h.home, "hosts");
  await writeFile(hosts, "127.0.0.1 allowed.bar.test\n127.0.0.1 other.bar.test\n");
  const command = `curl -s -m 10 http://allowed.bar.test:${port}/; curl -s -m 10 -o /dev/null -w '%{http_code}\\n' http://other.bar.test:${port}/; echo DONE`;
  h.server.enqueue(turn(functionCall("shell_command", { command }, "c1")), turn(message("fetched")));
  const result = await h.exec(["--skip-git-repo-check", ...args, "fetch"], {
    env: { TSCODEX_PROXY_HOSTS_FILE: hosts },
  });
  return { code: result.code, stderr: result.stderr, output: result.code === 0 ? h.outputOf(-1, "c1") : "" };
}

describe("exec under a permission profile", () => {
  it.skipIf(unsandboxed)(
    "the model reads the command's output, then which host was blocked and why",
    async () => {
      requireProgram("curl");
      const { code, stderr, output } = await runFetch([]);
      expect(code, stderr).toBe(0);
      expect(output).toContain(`hello from allowed.bar.test:${port}`);
      expect(output).toContain("403");
      expect(output).toContain("DONE");
      expect(output).toContain(
        'Network access to "other.bar.test" was blocked: domain is not on the allowlist for the current sandbox mode.',
      );
    },
  );

  it.skipIf(unsandboxed)(
    "-s workspace-write for one run wins over default_permissions: no network",
    async () => {
      requireProgram("curl");
      const { code, stderr, output } = await runFetch(["-s", "workspace-write"]);
      expect(code, stderr).toBe(0);
      expect(stderr).toContain('default_permissions = "web" is ignored');
      expect(output).not.toContain("hello from");
      expect(output).not.toContain("Network access to");
    },
  );
});
