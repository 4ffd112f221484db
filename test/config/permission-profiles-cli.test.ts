/**
 * Permission profiles through `tscodex exec` and the fake model: each refusal Codex makes
 * (reference permissions-network.md §5) prints its message and exits 1 before any model
 * request; `-c` and a trusted project's layer take part in choosing and building the profile.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";

const h = useExecHarness();

/** config.toml for the fake model, with `toml` first (top-level keys, then its tables). */
const configure = (toml: string) => h.writeConfig({ extra: toml });

async function refused(args: string[], expected: string): Promise<void> {
  const result = await h.exec([...args, "go"]);
  expect(result.stderr).toContain(expected);
  expect(result.code).toBe(1);
  expect(h.server.requests).toHaveLength(0);
}

async function runs(args: string[]): Promise<void> {
  h.server.enqueue(turn(message("done")));
  const result = await h.exec([...args, "go"]);
  expect(result.stderr).not.toContain("Error");
  expect(result.code).toBe(0);
  expect(h.server.requests).toHaveLength(1);
}

describe("exec refuses a bad permission profile before any model request", () => {
  it.each([
    [
      'default_permissions = "bar_bad"\n[permissions.bar_bad]\nextends = "ghost_parent"',
      "permissions profile `bar_bad` extends undefined profile `ghost_parent`",
    ],
    [
      'default_permissions = "loop_a"\n[permissions.loop_a]\nextends = "loop_b"\n[permissions.loop_b]\nextends = "loop_a"',
      "permissions profile inheritance cycle detected: loop_a -> loop_b -> loop_a",
    ],
    [
      'default_permissions = "x"\n[permissions.x]\nextends = ":danger-full-access"',
      "permissions profile `x` cannot extend unsupported built-in profile `:danger-full-access`",
    ],
    [
      'default_permissions = "w"\n[permissions.w]\nextends = ":nosuchbuiltin"',
      "permissions profile `w` cannot extend unsupported built-in profile `:nosuchbuiltin`",
    ],
    [
      'default_permissions = "nosuch"\n[permissions.web]\nextends = ":read-only"',
      "default_permissions refers to undefined profile `nosuch`",
    ],
    [
      '[permissions.web]\nextends = ":read-only"',
      "config defines `[permissions]` profiles but does not set `default_permissions`",
    ],
    [
      'default_permissions = "web"\n[permissions.web.network.domains]\n"x.test" = "bogus"',
      "config.toml: key 'permissions.web.network.domains.x.test': unknown variant `bogus`, expected `allow` or `deny`",
    ],
  ])("%s", async (toml, expected) => {
    await configure(toml);
    await refused([], expected);
  });

  it("-s chooses a sandbox mode for the run, so profiles without default_permissions are not refused", async () => {
    await configure('[permissions.web]\nextends = ":read-only"');
    await runs(["-s", "workspace-write"]);
  });
});

describe("choosing and layering profiles", () => {
  it("-c default_permissions selects a profile; -c adds a quoted domain rule to it", async () => {
    await configure('[permissions.web]\nextends = ":workspace"\nnetwork = { enabled = true }');
    await runs(["-c", "default_permissions=web", "-c", 'permissions.web.network.domains."x.test"="allow"']);
    h.server.reset();
    await refused(
      ["-c", "default_permissions=nosuch"],
      "default_permissions refers to undefined profile `nosuch`",
    );
  });

  it("a trusted project's .codex/config.toml merges into the user's profiles; untrusted, it is left out", async () => {
    await mkdir(join(h.work, ".codex"));
    await writeFile(
      join(h.work, ".codex", "config.toml"),
      '[permissions.base]\nextends = ":workspace"\n[permissions.web.network.domains]\n"project.test" = "allow"\n',
    );
    const user =
      'default_permissions = "web"\n[permissions.web]\nextends = "base"\nnetwork = { enabled = true }';
    await configure(user);
    await refused([], "permissions profile `web` extends undefined profile `base`");
    await configure(`${user}\n[projects."${h.work}"]\ntrust_level = "trusted"`);
    await runs([]);
  });
});
