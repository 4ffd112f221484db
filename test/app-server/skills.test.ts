/**
 * skills/list through the real app-server: a repo skill and a user skill with their scope and
 * path, and a skill with bad front matter reported as an error naming its file. Every message is
 * checked against Codex 0.169's schemas.
 */
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { messageText, type ResponseItem } from "../../src/protocol/items.js";
import type { AppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { message, turn } from "../support/fake-model-server.js";
import { runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

async function skill(root: string, dir: string, text: string): Promise<string> {
  await mkdir(join(root, dir), { recursive: true });
  const path = join(root, dir, "SKILL.md");
  await writeFile(path, text);
  return path;
}

describe("app-server: skills", () => {
  it("lists each directory's skills with scope and path, and bad front matter as an error", async () => {
    const repoSkill = await skill(
      join(h.work, ".codex", "skills"),
      "repo-skill",
      "---\nname: repo-skill\ndescription: Repo skill R1\n---\n\nbody\n",
    );
    const userSkill = await skill(
      join(h.home, "skills"),
      "user-dir",
      "---\nname: user-skill\ndescription: User skill U1\n---\n\nbody\n",
    );
    const broken = await skill(join(h.home, "skills"), "broken", "---\nname: broken\n---\n");
    const client = await h.stdio();

    const listed = await client.call("skills/list", { cwds: [h.work], forceReload: true });
    expect(listed.data).toHaveLength(1);
    const [entry] = listed.data;
    expect(entry.cwd).toBe(h.work);
    expect(entry.skills).toEqual(
      expect.arrayContaining([
        { name: "repo-skill", description: "Repo skill R1", path: repoSkill, scope: "repo", enabled: true },
        { name: "user-skill", description: "User skill U1", path: userSkill, scope: "user", enabled: true },
      ]),
    );
    expect(entry.skills.map((s: { name: string }) => s.name)).not.toContain("broken");
    expect(entry.errors).toEqual([{ path: broken, message: expect.stringContaining("description") }]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

describe("app-server: skills/config/write and skills/extraRoots/set", () => {
  const developerText = (input: readonly ResponseItem[]) =>
    input
      .filter((item) => item.type === "message" && item.role === "developer")
      .map((item) => (item.type === "message" ? messageText(item) : ""))
      .join("\n");
  const userText = (input: readonly ResponseItem[]) =>
    input
      .filter((item) => item.type === "message" && item.role === "user")
      .map((item) => (item.type === "message" ? messageText(item) : ""))
      .join("\n");

  it("a disabled skill is listed as such, kept in config.toml as Codex keeps it, and never reaches the model", async () => {
    const root = join(h.home, "skills");
    const alpha = await skill(
      root,
      "alpha",
      "---\nname: alpha\ndescription: Alpha skill A1\n---\n\nALPHA-BODY\n",
    );
    await skill(root, "beta", "---\nname: beta\ndescription: Beta skill B1\n---\n\nBETA-BODY\n");
    const client = await h.stdio();

    const written = await client.call("skills/config/write", { path: alpha, name: null, enabled: false });
    expect(written).toEqual({ effectiveEnabled: false });
    await client.waitFor((message) => message.method === "skills/changed");
    const config = parseToml(await readFile(join(h.home, "config.toml"), "utf8")) as {
      skills?: { config?: unknown };
    };
    expect(config.skills?.config).toEqual([{ path: alpha, enabled: false }]);

    const listed = await client.call("skills/list", { cwds: [h.work] });
    const states = Object.fromEntries(
      listed.data[0].skills.map((s: { name: string; enabled: boolean }) => [s.name, s.enabled]),
    );
    expect(states).toMatchObject({ alpha: false, beta: true });

    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("ok")));
    await runTurn(client, threadId, "use $alpha and $beta");
    const input = h.model.requests.at(-1)?.input ?? [];
    expect(developerText(input)).toContain("- beta: Beta skill B1");
    expect(developerText(input)).not.toContain("alpha");
    expect(userText(input)).toContain("BETA-BODY");
    expect(userText(input)).not.toContain("ALPHA-BODY");

    // On again: its entry goes, and a new thread gets it.
    expect(await client.call("skills/config/write", { path: alpha, enabled: true })).toEqual({
      effectiveEnabled: true,
    });
    const again = parseToml(await readFile(join(h.home, "config.toml"), "utf8")) as {
      skills?: { config?: unknown };
    };
    expect(again.skills?.config ?? []).toEqual([]);
    const next = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("ok")));
    await runTurn(client, next, "hi");
    expect(developerText(h.model.requests.at(-1)?.input ?? [])).toContain("- alpha: Alpha skill A1");

    const both = await client.request("skills/config/write", { path: alpha, name: "alpha", enabled: false });
    expect(both.error).toMatchObject({
      code: -32602,
      message: "skills/config/write requires exactly one of path or name",
    });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("extra roots add their skills to skills/list and to threads started afterwards", async () => {
    const extra = join(h.home, "extra-skills");
    const gamma = await skill(extra, "gamma", "---\nname: gamma\ndescription: Gamma skill G1\n---\n\nbody\n");
    const client = await h.stdio();
    const before = await client.call("skills/list", { cwds: [h.work] });
    expect(before.data[0].skills.map((s: { name: string }) => s.name)).not.toContain("gamma");

    expect(await client.call("skills/extraRoots/set", { extraRoots: [extra] })).toEqual({});
    await client.waitFor((message) => message.method === "skills/changed");
    const after = await client.call("skills/list", { cwds: [h.work] });
    expect(after.data[0].skills).toContainEqual({
      name: "gamma",
      description: "Gamma skill G1",
      path: gamma,
      scope: "user",
      enabled: true,
    });
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("ok")));
    await runTurn(client, threadId, "hi");
    expect(developerText(h.model.requests.at(-1)?.input ?? [])).toContain("- gamma: Gamma skill G1");

    const relative = await client.request("skills/extraRoots/set", { extraRoots: ["relative/dir"] });
    expect(relative.error?.code).toBe(-32602);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

describe("app-server: skills/changed when skill files change on disk", () => {
  /** Resolves with the next skills/changed `client` hears (after the ones it heard already). */
  const nextChange = (client: AppClient) => {
    const heard = client.notifications("skills/changed").length;
    return () => client.waitFor(() => client.notifications("skills/changed").length > heard);
  };
  const names = async (client: AppClient) => {
    const listed = await client.call("skills/list", { cwds: [h.work] });
    return Object.fromEntries(
      listed.data[0].skills.map((s: { name: string; description: string }) => [s.name, s.description]),
    );
  };

  /** Two initialized connections to one WebSocket server. */
  const twoClients = async (): Promise<[AppClient, AppClient]> => {
    const server = await h.wsServer();
    const connect = async () => {
      const client = await server.connect();
      h.defer(client);
      await client.initialize();
      return client;
    };
    const first = await connect();
    return [first, await connect()];
  };

  it("every connection hears a skill added, edited and its root deleted; a new list shows each", async () => {
    const root = join(h.work, ".agents", "skills");
    const first = await skill(root, "first", "---\nname: first\ndescription: First F1\n---\n");
    const [lister, other] = await twoClients();
    expect(await names(lister)).toMatchObject({ first: "First F1" });

    // A skill directory moved in whole (one event, so one notification).
    const staged = join(h.work, "staged");
    await skill(staged, "second", "---\nname: second\ndescription: Second S1\n---\n");
    let changed = [nextChange(lister), nextChange(other)];
    await rename(join(staged, "second"), join(root, "second"));
    await Promise.all(changed.map((wait) => wait()));
    expect(await names(lister)).toMatchObject({ first: "First F1", second: "Second S1" });

    // A SKILL.md rewritten in place.
    changed = [nextChange(lister), nextChange(other)];
    await writeFile(first, "---\nname: first\ndescription: First F2\n---\n");
    await Promise.all(changed.map((wait) => wait()));
    expect(await names(lister)).toMatchObject({ first: "First F2" });

    // The root deleted: heard, and the server goes on (the new skill dir under a new root too).
    changed = [nextChange(lister), nextChange(other)];
    await rm(root, { recursive: true });
    await Promise.all(changed.map((wait) => wait()));
    const after = await names(lister);
    expect(after).not.toHaveProperty("first");
    expect(after).not.toHaveProperty("second");
    changed = [nextChange(lister)];
    await mkdir(staged, { recursive: true });
    await skill(staged, "third", "---\nname: third\ndescription: Third T1\n---\n");
    await mkdir(root);
    await Promise.all(changed.map((wait) => wait()));
    changed = [nextChange(lister)];
    await rename(join(staged, "third"), join(root, "third"));
    await Promise.all(changed.map((wait) => wait()));
    expect(await names(lister)).toMatchObject({ third: "Third T1" });
    expect(referenceSchemaFailures(lister)).toEqual([]);
    expect(referenceSchemaFailures(other)).toEqual([]);
  });

  it("a config write or new extra roots tell every connection, not only the caller", async () => {
    const alpha = await skill(join(h.home, "skills"), "alpha", "---\nname: alpha\ndescription: A1\n---\n");
    const [caller, other] = await twoClients();
    let heard = nextChange(other);
    await caller.call("skills/config/write", { path: alpha, enabled: false });
    await heard();
    heard = nextChange(other);
    await caller.call("skills/extraRoots/set", { extraRoots: [join(h.home, "extra")] });
    await heard();
    expect(referenceSchemaFailures(other)).toEqual([]);
  });
});
