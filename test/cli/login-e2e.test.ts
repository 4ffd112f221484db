/**
 * `tscodex login --with-api-key`, `login status` and `logout` through the built CLI, with Codex
 * 0.171's messages and auth.json (cli-parity.md Part 1 §12); a later exec sends the saved key to
 * a `requires_openai_auth` provider, and after logout sends none.
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";

const h = useExecHarness({ config: false });

/** config.toml with a provider that takes OpenAI auth and names no env var. */
const writeAuthProviderConfig = () =>
  writeFile(
    join(h.home, "config.toml"),
    [
      'model_provider = "mockauth"',
      "[model_providers.mockauth]",
      'name = "mockauth"',
      `base_url = "${h.server.url}"`,
      'wire_api = "responses"',
      "requires_openai_auth = true",
      "request_max_retries = 0",
      "",
    ].join("\n"),
  );

describe("tscodex login / logout", () => {
  it("saves the key from stdin in auth.json (0600), reports it masked, and logs out", async () => {
    const notYet = await h.cli(["login", "status"]);
    expect(notYet.code).toBe(1);
    expect(notYet.stderr).toContain("Not logged in");

    const login = await h.cli(["login", "--with-api-key"], { stdin: "sk-login-test-4242\n" });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(
      "Reading API key from stdin...\nAPI key saved. Authentication is checked when you send a request.\n",
    );
    const path = join(h.home, "auth.json");
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({
      auth_mode: "apikey",
      OPENAI_API_KEY: "sk-login-test-4242",
    });
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    const status = await h.cli(["login", "status"]);
    expect(status.code).toBe(0);
    expect(status.stderr).toContain(
      "API key configured - sk-login***-4242\nAuthentication is checked when you send a request.",
    );

    const logout = await h.cli(["logout"]);
    expect(logout.code).toBe(0);
    expect(logout.stderr).toContain("Successfully logged out");
    await expect(stat(path)).rejects.toThrow();
    const again = await h.cli(["logout"]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("Not logged in");
  });

  it("a later exec sends the saved key to a requires_openai_auth provider; after logout, none", async () => {
    await writeAuthProviderConfig();
    h.server.enqueue(turn(message("one")), turn(message("two")));
    await h.cli(["login", "--with-api-key"], { stdin: "sk-saved-key-123456\n" });
    const first = await h.exec(["--skip-git-repo-check", "hi"]);
    expect(first.code, first.stderr).toBe(0);
    expect(h.server.requests[0]?.headers.authorization).toBe("Bearer sk-saved-key-123456");
    await h.cli(["logout"]);
    const second = await h.exec(["--skip-git-repo-check", "hi"]);
    expect(second.code, second.stderr).toBe(0);
    expect(h.server.requests[1]?.headers.authorization).toBeUndefined();
  });

  it("an empty stdin saves nothing", async () => {
    const login = await h.cli(["login", "--with-api-key"], { stdin: "\n" });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain("No API key provided via stdin.");
    await expect(stat(join(h.home, "auth.json"))).rejects.toThrow();
  });
});
