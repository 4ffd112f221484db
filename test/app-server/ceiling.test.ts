/**
 * The operator's ceiling through the real app-server: with a requirements.toml in the server's
 * home, configRequirements/read reports it and every request above it (thread/start,
 * thread/resume, turn/start, command/exec, fs/* writes) is refused with -32600 naming the
 * requirement, before anything runs; without one, a client asks for what it likes and its fs/*
 * writes go where the user can, except into .git and the like and the tscodex home.
 */
import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { tmpdir } from "../support/tmpdir.js";

const h = useAppServerHarness();
const b64 = (text: string) => Buffer.from(text).toString("base64");
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );
/** Only the server's cwd is a workspace-write root: /tmp (where the test dirs live) is not. */
const cwdOnly = [
  "-c",
  "sandbox_workspace_write.exclude_slash_tmp=true",
  "-c",
  "sandbox_workspace_write.exclude_tmpdir_env_var=true",
];
const LIMITED =
  'allowed_sandbox_modes = ["read-only", "workspace-write"]\nallowed_approval_policies = ["on-request", "untrusted"]\n';

async function requirements(text: string): Promise<string> {
  const path = join(h.home, "requirements.toml");
  await writeFile(path, text);
  return path;
}

async function outsideDir(): Promise<string> {
  const outside = await tmpdir("tscodex-ceiling-outside-");
  h.defer({ close: () => outside.cleanup() });
  return outside.path;
}

describe("app-server without requirements.toml", () => {
  it("reports none, lets a client start a full-access thread, and lets fs/* write as the user on a read-only server", async () => {
    const client = await h.stdio();
    expect(await client.call("configRequirements/read")).toEqual({ requirements: null });
    const started = await client.call("thread/start", { cwd: h.work, sandbox: "danger-full-access" });
    expect(started.sandbox).toEqual({ type: "dangerFullAccess" });

    // The server's sandbox is read-only (the default): the client's own writes are not the agent's.
    const outside = await outsideDir();
    const note = join(outside, "deep", "note.txt");
    expect(await client.call("fs/createDirectory", { path: join(outside, "deep") })).toEqual({});
    expect(await client.call("fs/writeFile", { path: note, dataBase64: b64("saved") })).toEqual({});
    expect(await readFile(note, "utf8")).toBe("saved");

    // Never into a repository's or a project's control files, nor the tscodex home.
    await mkdir(join(outside, ".git"));
    for (const path of [
      join(outside, ".git", "config"),
      join(h.work, ".codex", "config.toml"),
      join(h.home, "config.toml"),
    ]) {
      const reply = await client.request("fs/writeFile", { path, dataBase64: b64("evil") });
      expect(reply.error?.code, path).toBe(-32600);
      expect(reply.error?.message, path).toBe(
        `fs/writeFile refused: ${path} is inside a protected entry; .git, .codex, .agents and .tscodex entries and the tscodex home (${h.home}) are never written by fs/*`,
      );
    }
    expect(await exists(join(outside, ".git", "config"))).toBe(false);
    expect(await readFile(join(h.home, "config.toml"), "utf8")).not.toContain("evil");
  });
});

describe("app-server with requirements.toml in its home", () => {
  it("reports the requirements in Codex's shape", async () => {
    await requirements(`${LIMITED}[allowed_permission_profiles]\n":read-only" = true\n":workspace" = true\n`);
    const client = await h.stdio();
    expect(await client.call("configRequirements/read")).toEqual({
      requirements: {
        allowedSandboxModes: ["read-only", "workspace-write"],
        allowedApprovalPolicies: ["on-request", "untrusted"],
        allowedPermissionProfiles: { ":read-only": true, ":workspace": true },
      },
    });
    expect((await client.call("permissionProfile/list", {})).data).toEqual([
      { id: ":read-only", description: null, allowed: true },
      { id: ":workspace", description: null, allowed: true },
      { id: ":danger-full-access", description: null, allowed: false },
    ]);
  });

  it("refuses a thread above the ceiling, naming the requirement, before it starts", async () => {
    const file = await requirements(LIMITED);
    const client = await h.stdio();
    const full = await client.request("thread/start", { cwd: h.work, sandbox: "danger-full-access" });
    expect(full.error).toEqual({
      code: -32600,
      message: `sandbox mode \`danger-full-access\` is not allowed by requirements.toml (allowed_sandbox_modes = read-only, workspace-write) at ${file}`,
    });
    const never = await client.request("thread/start", { cwd: h.work, approvalPolicy: "never" });
    expect(never.error?.message).toBe(
      `approval policy \`never\` is not allowed by requirements.toml (allowed_approval_policies = on-request, untrusted) at ${file}`,
    );
    expect(client.notifications("thread/started")).toEqual([]);

    // Within the ceiling it starts, and a resume may not widen it either.
    const { thread } = await client.call("thread/start", { cwd: h.work, sandbox: "workspace-write" });
    const resumed = await client.request("thread/resume", {
      threadId: thread.id,
      sandbox: "danger-full-access",
    });
    expect(resumed.error?.code).toBe(-32600);
    expect(resumed.error?.message).toMatch(/^sandbox mode `danger-full-access` is not allowed/);
  });

  it("refuses to run a thread stored above the ceiling before it was set: no turn, shell command or resume", async () => {
    const before = await h.stdio();
    const { thread } = await before.call("thread/start", { cwd: h.work, sandbox: "danger-full-access" });
    h.model.enqueue(turn(message("done")));
    await before.call("turn/start", { threadId: thread.id, input: [{ type: "text", text: "hi" }] });
    await before.waitFor((m) => m.method === "turn/completed");
    await before.close();

    const file = await requirements(LIMITED);
    const client = await h.stdio();
    const refusal = {
      code: -32600,
      message: `sandbox mode \`danger-full-access\` is not allowed by requirements.toml (allowed_sandbox_modes = read-only, workspace-write) at ${file}`,
    };
    const input = [{ type: "text", text: "again" }];
    expect((await client.request("turn/start", { threadId: thread.id, input })).error).toEqual(refusal);
    const shell = await client.request("thread/shellCommand", { threadId: thread.id, command: "touch ran" });
    expect(shell.error).toEqual(refusal);
    expect((await client.request("thread/resume", { threadId: thread.id })).error).toEqual(refusal);
    expect(await exists(join(h.work, "ran"))).toBe(false);
    expect(h.model.requests).toHaveLength(1);
    // Resuming it within the ceiling is allowed, and so are its turns from then on.
    await client.call("thread/resume", { threadId: thread.id, sandbox: "workspace-write" });
  });

  it("refuses the server's own configured default when it is above the ceiling", async () => {
    const file = await requirements(LIMITED);
    const client = await h.stdio({ args: ["-c", 'sandbox_mode="danger-full-access"'] });
    const reply = await client.request("thread/start", { cwd: h.work });
    expect(reply.error?.message).toBe(
      `sandbox mode \`danger-full-access\` is not allowed by requirements.toml (allowed_sandbox_modes = read-only, workspace-write) at ${file}`,
    );
  });

  it("refuses a turn whose approval policy or sandbox policy is above the ceiling, the model never asked", async () => {
    await requirements(LIMITED);
    const client = await h.stdio();
    const { thread } = await client.call("thread/start", { cwd: h.work });
    const input = [{ type: "text", text: "hello" }];
    const never = await client.request("turn/start", { threadId: thread.id, input, approvalPolicy: "never" });
    expect(never.error?.code).toBe(-32600);
    expect(never.error?.message).toMatch(/^approval policy `never` is not allowed by requirements\.toml/);
    const full = await client.request("turn/start", {
      threadId: thread.id,
      input,
      sandboxPolicy: { type: "dangerFullAccess" },
    });
    expect(full.error?.message).toMatch(
      /^sandbox mode `danger-full-access` is not allowed by requirements\.toml/,
    );
    expect(client.notifications("turn/started")).toEqual([]);
    expect(h.model.requests).toHaveLength(0);

    // A turn within the ceiling runs.
    h.model.enqueue(turn(message("fine")));
    const ok = await client.call("turn/start", { threadId: thread.id, input, approvalPolicy: "untrusted" });
    expect(ok.turn.status).toBe("inProgress");
    await client.waitFor((m) => m.method === "turn/completed");
    expect(h.model.requests).toHaveLength(1);
  });

  it("judges permission profiles: a thread's, a turn's or a command's, and a legacy sandbox as its built-in", async () => {
    const file = await requirements(
      '[allowed_permission_profiles]\n":read-only" = true\n":workspace" = true\n',
    );
    const client = await h.stdio({ capabilities: { experimentalApi: true } });
    const allowed = "allowed_permission_profiles = :read-only, :workspace";
    const profile = await client.request("thread/start", { cwd: h.work, permissions: ":danger-full-access" });
    expect(profile.error).toEqual({
      code: -32600,
      message: `permission profile \`:danger-full-access\` is not allowed by requirements.toml (${allowed}) at ${file}`,
    });
    const legacy = await client.request("thread/start", { cwd: h.work, sandbox: "danger-full-access" });
    expect(legacy.error?.message).toBe(
      `sandbox mode \`danger-full-access\` (the built-in permission profile \`:danger-full-access\`) is not allowed by requirements.toml (${allowed}) at ${file}`,
    );
    const { thread } = await client.call("thread/start", { cwd: h.work, permissions: ":workspace" });
    const input = [{ type: "text", text: "hello" }];
    const wider = await client.request("turn/start", {
      threadId: thread.id,
      input,
      permissions: ":danger-full-access",
    });
    expect(wider.error?.code).toBe(-32600);
    expect(wider.error?.message).toContain(`is not allowed by requirements.toml (${allowed}) at ${file}`);
    expect(h.model.requests).toHaveLength(0);

    const marker = join(h.work, "ran");
    const command = ["sh", "-c", `touch ${marker}`];
    const exec = await client.request("command/exec", {
      command,
      cwd: h.work,
      permissionProfile: ":danger-full-access",
    });
    expect(exec.error?.code).toBe(-32600);
    expect(exec.error?.message).toContain(`is not allowed by requirements.toml (${allowed}) at ${file}`);
    expect(await exists(marker)).toBe(false);
    const ok = await client.call("command/exec", {
      command: ["sh", "-c", "echo within"],
      cwd: h.work,
      permissionProfile: ":read-only",
    });
    expect(ok).toMatchObject({ exitCode: 0, stdout: "within\n" });
  });

  it("refuses command/exec with a sandbox policy above the ceiling, running nothing", async () => {
    const file = await requirements(LIMITED);
    const client = await h.stdio();
    const marker = join(h.work, "ran");
    const command = ["sh", "-c", `touch ${marker}`];
    for (const sandboxPolicy of [{ type: "dangerFullAccess" }, { type: "externalSandbox" }]) {
      const reply = await client.request("command/exec", { command, cwd: h.work, sandboxPolicy });
      expect(reply.error, sandboxPolicy.type).toEqual({
        code: -32600,
        message: `sandbox mode \`danger-full-access\` is not allowed by requirements.toml (allowed_sandbox_modes = read-only, workspace-write) at ${file}`,
      });
    }
    expect(await exists(marker)).toBe(false);
    const ok = await client.call("command/exec", {
      command: ["sh", "-c", "echo within"],
      cwd: h.work,
      sandboxPolicy: { type: "readOnly" },
    });
    expect(ok).toMatchObject({ exitCode: 0, stdout: "within\n" });
  });

  it("keeps fs/* writes inside the ceiling's writable roots, never in .git or the home", async () => {
    const file = await requirements(LIMITED);
    const client = await h.stdio({ args: cwdOnly });
    const inside = join(h.work, "in.txt");
    expect(await client.call("fs/writeFile", { path: inside, dataBase64: b64("in") })).toEqual({});
    expect(await readFile(inside, "utf8")).toBe("in");

    const outside = join(await outsideDir(), "out.txt");
    const refused = await client.request("fs/writeFile", { path: outside, dataBase64: b64("out") });
    expect(refused.error).toEqual({
      code: -32600,
      message: `fs/writeFile refused: ${outside} is outside the writable roots allowed by requirements.toml (allowed_sandbox_modes = read-only, workspace-write at ${file}): ${h.work}; .git, .codex, .agents and .tscodex entries and the tscodex home (${h.home}) are never written by fs/*`,
    });
    expect(await exists(outside)).toBe(false);
    await mkdir(join(h.work, ".git"));
    const git = await client.request("fs/writeFile", {
      path: join(h.work, ".git", "config"),
      dataBase64: b64("x"),
    });
    expect(git.error?.code).toBe(-32600);
    expect(await exists(join(h.work, ".git", "config"))).toBe(false);
  });

  it("keeps the home's config read-only even where /tmp, which holds it, is a writable root", async () => {
    await requirements(LIMITED);
    const client = await h.stdio();
    const config = join(h.home, "config.toml");
    const before = await readFile(config, "utf8");
    const reply = await client.request("fs/writeFile", { path: config, dataBase64: b64("model = 'x'\n") });
    expect(reply.error?.code).toBe(-32600);
    expect(await readFile(config, "utf8")).toBe(before);
  });

  it("refuses every fs/* write when only read-only is allowed", async () => {
    const file = await requirements('allowed_sandbox_modes = ["read-only"]\n');
    const client = await h.stdio();
    for (const [method, params] of [
      ["fs/writeFile", { path: join(h.work, "a.txt"), dataBase64: b64("a") }],
      ["fs/createDirectory", { path: join(h.work, "d") }],
      ["fs/remove", { path: join(h.work, "a.txt") }],
    ] as const) {
      const reply = await client.request(method, params);
      expect(reply.error, method).toEqual({
        code: -32600,
        message: `${method} refused: requirements.toml allows no writes (allowed_sandbox_modes = read-only at ${file}); only read-only access is allowed`,
      });
    }
    expect(await exists(join(h.work, "a.txt"))).toBe(false);
  });

  it("does not start when its requirements.toml is malformed, and says which file", async () => {
    const file = await requirements('allowed_sandbox_modes = ["workspace-write"]\n');
    const client = await h.stdio({ initialize: false });
    expect(await client.exited).toBe(2);
    expect(client.stderr).toContain(`${file}: allowed_sandbox_modes: must include "read-only"`);
  });
});
