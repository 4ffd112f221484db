/**
 * The guards of the app-server's fs/* methods against a hostile workspace (issue 37), through the
 * real stdio server: writes and copies resolve every path component, a link as the last one
 * included, and never land in a protected entry (.git, .codex, .tscodex, .agents, the tscodex
 * home), nor, under a requirements.toml, outside the ceiling's writable roots; recursive removes
 * and copies never delete or create such an entry; reads refuse what is not a regular file and
 * stop at a bound.
 */
import { execFileSync } from "node:child_process";
import { access, mkdir, readFile, symlink, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { StdioAppClient, WireMessage } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { tmpdir } from "../support/tmpdir.js";

const h = useAppServerHarness();
const b64 = (text: string) => Buffer.from(text).toString("base64");
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );
/** The writable roots are the server's cwd, /tmp and $TMPDIR: the home (under /tmp) is inside them. */
const workspaceWrite = ["-c", 'sandbox_mode="workspace-write"'];
/** Only the server's cwd is writable: /tmp (where the test dirs live) is not a root. */
const cwdOnly = [
  ...workspaceWrite,
  "-c",
  "sandbox_workspace_write.exclude_slash_tmp=true",
  "-c",
  "sandbox_workspace_write.exclude_tmpdir_env_var=true",
];
const REFUSED = /^fs\/(writeFile|copy) refused: .* is (outside the writable roots|inside a protected entry)/;
/** The operator's ceiling: at most workspace-write, so fs/* writes stay in the server's roots. */
const WORKSPACE_CEILING = 'allowed_sandbox_modes = ["read-only", "workspace-write"]\n';

async function outsideDir(): Promise<string> {
  const outside = await tmpdir("tscodex-fs-outside-");
  h.defer({ close: () => outside.cleanup() });
  return outside.path;
}

describe("app-server fs/*: links in the workspace", () => {
  it("refuses writeFile and copy through a link to an outside file, a dangling outside target or .git/config", async () => {
    const outside = await outsideDir();
    // Without requirements the client writes where its user can: the ceiling bounds it to the roots.
    await writeFile(join(h.home, "requirements.toml"), WORKSPACE_CEILING);
    const client = await h.stdio({ args: cwdOnly });
    const outsideFile = join(outside, "victim.txt");
    await writeFile(outsideFile, "original");
    await mkdir(join(h.work, ".git"));
    await writeFile(join(h.work, ".git", "config"), "[core]\n");
    await writeFile(join(h.work, "source.txt"), "evil");
    await symlink(outsideFile, join(h.work, "to-outside"));
    await symlink(join(outside, "planted.txt"), join(h.work, "dangling"));
    await symlink(join(h.work, ".git", "config"), join(h.work, "to-git-config"));
    // A link whose own text is relative, through a link to a directory.
    await symlink(".git", join(h.work, "git-dir"));

    for (const name of ["to-outside", "dangling", "to-git-config", join("git-dir", "config")]) {
      const path = join(h.work, name);
      const write = await client.request("fs/writeFile", { path, dataBase64: b64("evil") });
      expect(write.error?.code, name).toBe(-32600);
      expect(write.error?.message, name).toMatch(REFUSED);
      const copy = await client.request("fs/copy", {
        sourcePath: join(h.work, "source.txt"),
        destinationPath: path,
      });
      expect(copy.error?.code, name).toBe(-32600);
      expect(copy.error?.message, name).toMatch(REFUSED);
    }
    expect(await readFile(outsideFile, "utf8")).toBe("original");
    expect(await exists(join(outside, "planted.txt"))).toBe(false);
    expect(await readFile(join(h.work, ".git", "config"), "utf8")).toBe("[core]\n");

    // A link that stays inside the workspace is still written through.
    await writeFile(join(h.work, "inside.txt"), "before");
    await symlink(join(h.work, "inside.txt"), join(h.work, "to-inside"));
    await client.call("fs/writeFile", { path: join(h.work, "to-inside"), dataBase64: b64("after") });
    expect(await readFile(join(h.work, "inside.txt"), "utf8")).toBe("after");
  });

  it("refuses writeFile and copy through a link to the home's config.toml, though the home lies in a writable root", async () => {
    const client = await h.stdio({ args: workspaceWrite });
    const config = join(h.home, "config.toml");
    const before = await readFile(config, "utf8");
    await symlink(config, join(h.work, "settings.toml"));
    await writeFile(join(h.work, "source.txt"), 'sandbox_mode = "danger-full-access"\n');
    const path = join(h.work, "settings.toml");
    const write = await client.request("fs/writeFile", { path, dataBase64: b64('model = "evil"\n') });
    expect(write.error?.code).toBe(-32600);
    expect(write.error?.message).toMatch(REFUSED);
    const copy = await client.request("fs/copy", {
      sourcePath: join(h.work, "source.txt"),
      destinationPath: path,
    });
    expect(copy.error?.code).toBe(-32600);
    expect(copy.error?.message).toMatch(REFUSED);
    expect(await readFile(config, "utf8")).toBe(before);

    // Nested control directories are protected as well as the root's.
    await mkdir(join(h.work, "pkg", ".agents", "skills"), { recursive: true });
    const skill = await client.request("fs/writeFile", {
      path: join(h.work, "pkg", ".agents", "skills", "SKILL.md"),
      dataBase64: b64("evil"),
    });
    expect(skill.error?.code).toBe(-32600);
    expect(await exists(join(h.work, "pkg", ".agents", "skills", "SKILL.md"))).toBe(false);
  });
});

describe("app-server fs/*: protected entries in trees", () => {
  it("refuses a recursive remove of a directory holding a nested .git, deleting nothing", async () => {
    const client = await h.stdio({ args: cwdOnly });
    const project = join(h.work, "project");
    await mkdir(join(project, "vendor", "lib", ".git"), { recursive: true });
    await writeFile(join(project, "vendor", "lib", ".git", "config"), "[core]\n");
    await writeFile(join(project, "a.txt"), "a");
    const reply = await client.request("fs/remove", { path: project });
    expect(reply.error?.code).toBe(-32600);
    expect(reply.error?.message).toBe(
      `fs/remove refused: ${project} holds ${join(project, "vendor", "lib", ".git")}, and .git, .codex, .agents and .tscodex entries and the tscodex home are never created, changed or removed by fs/*`,
    );
    expect(await readFile(join(project, "vendor", "lib", ".git", "config"), "utf8")).toBe("[core]\n");
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe("a");

    // A tree without protected entries is removed as before.
    await mkdir(join(h.work, "plain", "deep"), { recursive: true });
    await writeFile(join(h.work, "plain", "deep", "x.txt"), "x");
    expect(await client.call("fs/remove", { path: join(h.work, "plain") })).toEqual({});
    expect(await exists(join(h.work, "plain"))).toBe(false);
  });

  it("refuses a recursive copy of a repository into the workspace, creating nothing", async () => {
    const outside = await outsideDir();
    const client = await h.stdio({ args: cwdOnly });
    const repo = join(outside, "repo");
    await mkdir(join(repo, ".git", "hooks"), { recursive: true });
    await writeFile(join(repo, ".git", "hooks", "post-checkout"), "#!/bin/sh\necho owned\n");
    await writeFile(join(repo, "README"), "hi");
    const clone = join(h.work, "clone");
    const reply = await client.request("fs/copy", {
      sourcePath: repo,
      destinationPath: clone,
      recursive: true,
    });
    expect(reply.error?.code).toBe(-32600);
    expect(reply.error?.message).toBe(
      `fs/copy refused: copying ${repo} would create ${join(clone, ".git")}, and .git, .codex, .agents and .tscodex entries and the tscodex home are never created, changed or removed by fs/*`,
    );
    expect(await exists(clone)).toBe(false);

    // Without the .git, the copy goes through, links copied as links.
    execFileSync("rm", ["-rf", join(repo, ".git")]);
    await symlink("README", join(repo, "readme-link"));
    expect(
      await client.call("fs/copy", { sourcePath: repo, destinationPath: clone, recursive: true }),
    ).toEqual({});
    expect(await readFile(join(clone, "README"), "utf8")).toBe("hi");
    expect(await readFile(join(clone, "readme-link"), "utf8")).toBe("hi");
  });
});

describe("app-server fs/readFile: what is not a regular file, and size", () => {
  /** Rejects as soon as the server's resident memory passes `limitMb`. */
  function rssWatch(client: StdioAppClient, limitMb: number): { done: Promise<never>; stop(): void } {
    let timer: NodeJS.Timeout | undefined;
    const done = new Promise<never>((_, reject) => {
      timer = setInterval(async () => {
        const status = await readFile(`/proc/${client.child.pid}/status`, "utf8").catch(() => "");
        const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
        if (kb > limitMb * 1024) {
          client.child.kill("SIGKILL");
          reject(new Error(`the server's RSS reached ${Math.round(kb / 1024)} MB`));
        }
      }, 20);
    });
    return { done, stop: () => clearInterval(timer) };
  }

  it("refuses /dev/zero promptly, the server's memory staying small", async () => {
    const client = await h.stdio({ args: workspaceWrite });
    const watch = rssWatch(client, 300);
    let reply: WireMessage;
    try {
      reply = await Promise.race([client.request("fs/readFile", { path: "/dev/zero" }), watch.done]);
    } finally {
      watch.stop();
    }
    expect(reply.error).toEqual({
      code: -32600,
      message: "fs/readFile refused: /dev/zero is a character device; only regular files are read",
    });
  });

  it("refuses a FIFO promptly, for reading and for writing", async () => {
    const client = await h.stdio({ args: workspaceWrite });
    const fifo = join(h.work, "pipe");
    execFileSync("mkfifo", [fifo]);
    const read = await client.request("fs/readFile", { path: fifo }, undefined);
    expect(read.error).toEqual({
      code: -32600,
      message: `fs/readFile refused: ${fifo} is a FIFO; only regular files are read`,
    });
    const write = await client.request("fs/writeFile", { path: fifo, dataBase64: b64("x") });
    expect(write.error?.code).toBe(-32600);
    expect(write.error?.message).toBe(
      `fs/writeFile refused: ${fifo} is a FIFO; only regular files are written`,
    );
  });

  it("refuses a regular file over the limit with a clear error", async () => {
    const client = await h.stdio();
    const big = join(h.work, "big.bin");
    await writeFile(big, "");
    await truncate(big, 64 * 1024 * 1024 + 1);
    const reply = await client.request("fs/readFile", { path: big });
    expect(reply.error).toEqual({
      code: -32600,
      message: `fs/readFile: ${big} is ${64 * 1024 * 1024 + 1} bytes; files over ${64 * 1024 * 1024} bytes are not read whole`,
    });
  });
});
