/**
 * fs/* against the real server: reads, writes, directories, metadata, copies and removal by
 * absolute path, each write the client's own (it acts as the user, whatever the server's
 * sandbox; a requirements.toml bounds it to the ceiling's writable roots), and watches that
 * report fs/changed; every message checked against Codex 0.169's schema.
 */
import { access, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { tmpdir } from "../support/tmpdir.js";

const h = useAppServerHarness();
/** The first schema check of a file compiles Codex's large schemas: seconds on a loaded machine. */
const FIRST_CHECK_TIMEOUT_MS = 60_000;
const b64 = (text: string) => Buffer.from(text).toString("base64");
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );
const workspaceWrite = ["-c", 'sandbox_mode="workspace-write"'];
/** Only the server's cwd is writable: /tmp (where the test dirs live) is not a root. */
const cwdOnly = [
  ...workspaceWrite,
  "-c",
  "sandbox_workspace_write.exclude_slash_tmp=true",
  "-c",
  "sandbox_workspace_write.exclude_tmpdir_env_var=true",
];

describe("app-server: fs/*", () => {
  it(
    "writes, reads, lists, describes, copies and removes files and directories",
    async () => {
      const client = await h.stdio({ args: workspaceWrite });
      const dir = join(h.work, "nested", "deeper");
      expect(await client.call("fs/createDirectory", { path: dir })).toEqual({});
      const note = join(dir, "note.txt");
      expect(await client.call("fs/writeFile", { path: note, dataBase64: b64("hello") })).toEqual({});
      expect(await readFile(note, "utf8")).toBe("hello");
      expect(await client.call("fs/readFile", { path: note })).toEqual({ dataBase64: b64("hello") });

      const meta = await client.call("fs/getMetadata", { path: note });
      expect(meta).toMatchObject({ isDirectory: false, isFile: true, isSymlink: false });
      expect(meta.modifiedAtMs).toBeGreaterThan(Date.now() - 60_000);
      expect(Object.keys(meta)).toEqual([
        "isDirectory",
        "isFile",
        "isSymlink",
        "createdAtMs",
        "modifiedAtMs",
      ]);

      await symlink(note, join(dir, "link"));
      const { entries } = await client.call("fs/readDirectory", { path: dir });
      expect(
        entries.sort((a: { fileName: string }, b: { fileName: string }) =>
          a.fileName.localeCompare(b.fileName),
        ),
      ).toEqual([
        { fileName: "link", isDirectory: false, isFile: true },
        { fileName: "note.txt", isDirectory: false, isFile: true },
      ]);
      expect(await client.call("fs/getMetadata", { path: join(dir, "link") })).toMatchObject({
        isSymlink: true,
        isFile: true,
      });

      await client.call("fs/copy", { sourcePath: note, destinationPath: join(h.work, "copy.txt") });
      expect(await readFile(join(h.work, "copy.txt"), "utf8")).toBe("hello");
      const nested = join(h.work, "nested");
      const dirCopy = await client.request("fs/copy", {
        sourcePath: nested,
        destinationPath: join(h.work, "tree"),
      });
      expect(dirCopy.error).toEqual({
        code: -32600,
        message: "fs/copy requires recursive: true when sourcePath is a directory",
      });
      await client.call("fs/copy", {
        sourcePath: nested,
        destinationPath: join(h.work, "tree"),
        recursive: true,
      });
      expect(await readFile(join(h.work, "tree", "deeper", "note.txt"), "utf8")).toBe("hello");
      const intoItself = await client.request("fs/copy", {
        sourcePath: nested,
        destinationPath: join(nested, "deeper", "again"),
        recursive: true,
      });
      expect(intoItself.error?.message).toMatch(/to itself or one of its descendants/);

      expect(await client.call("fs/remove", { path: nested })).toEqual({});
      expect(await exists(nested)).toBe(false);
      // Missing is fine unless force is false.
      expect(await client.call("fs/remove", { path: nested })).toEqual({});
      const strict = await client.request("fs/remove", { path: nested, force: false });
      expect(strict.error?.code).toBe(-32603);
      expect(strict.error?.message).toMatch(/ENOENT/);
      expect(referenceSchemaFailures(client)).toEqual([]);
    },
    FIRST_CHECK_TIMEOUT_MS,
  );

  it("writes as the user on a read-only server: the server's sandbox is the agent's, not the client's", async () => {
    const client = await h.stdio();
    const target = join(h.work, "saved.txt");
    await writeFile(join(h.work, "present.txt"), "x");
    expect(await client.call("fs/writeFile", { path: target, dataBase64: b64("yes") })).toEqual({});
    expect(await client.call("fs/createDirectory", { path: join(h.work, "dir") })).toEqual({});
    expect(
      await client.call("fs/copy", {
        sourcePath: join(h.work, "present.txt"),
        destinationPath: join(h.work, "dir", "c.txt"),
      }),
    ).toEqual({});
    expect(await client.call("fs/remove", { path: join(h.work, "present.txt") })).toEqual({});
    expect(await readFile(target, "utf8")).toBe("yes");
    expect(await readFile(join(h.work, "dir", "c.txt"), "utf8")).toBe("x");
    expect(await exists(join(h.work, "present.txt"))).toBe(false);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("writes only inside the writable roots under a workspace-write ceiling, symlinks and .git included", async () => {
    const outside = await tmpdir("tscodex-fs-outside-");
    h.defer({ close: () => outside.cleanup() });
    await writeFile(
      join(h.home, "requirements.toml"),
      'allowed_sandbox_modes = ["read-only", "workspace-write"]\n',
    );
    const client = await h.stdio({ args: cwdOnly });
    expect(
      await client.call("fs/writeFile", { path: join(h.work, "in.txt"), dataBase64: b64("in") }),
    ).toEqual({});
    await symlink(outside.path, join(h.work, "escape"));
    await mkdir(join(h.work, ".git"));
    for (const path of [
      join(outside.path, "out.txt"),
      join(h.work, "escape", "out.txt"),
      join(h.work, ".git", "config"),
    ]) {
      const reply = await client.request("fs/writeFile", { path, dataBase64: b64("out") });
      expect(reply.error?.code, path).toBe(-32600);
      expect(reply.error?.message).toMatch(
        /^fs\/writeFile refused: .* is (outside the writable roots|inside a protected entry)/,
      );
    }
    expect(await exists(join(outside.path, "out.txt"))).toBe(false);
    expect(await exists(join(h.work, ".git", "config"))).toBe(false);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("answers bad paths and bad data with errors", async () => {
    const client = await h.stdio({ args: workspaceWrite });
    const relative = await client.request("fs/readFile", { path: "relative.txt" });
    expect(relative.error).toEqual({
      code: -32602,
      message: "Invalid request: `path`: must be an absolute path",
    });
    const missing = await client.request("fs/readFile", { path: join(h.work, "missing.txt") });
    expect(missing.error?.code).toBe(-32603);
    expect(missing.error?.message).toMatch(/ENOENT: no such file or directory/);
    const badData = await client.request("fs/writeFile", { path: join(h.work, "x"), dataBase64: "%%%" });
    expect(badData.error).toEqual({
      code: -32602,
      message: "Invalid request: `dataBase64` is not valid base64",
    });
    const notDir = await client.request("fs/readDirectory", { path: join(h.work, "missing") });
    expect(notDir.error?.code).toBe(-32603);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

describe("app-server: fs/watch", () => {
  it("reports changes of a watched file and of a watched directory's entries over WebSocket, until unwatched", async () => {
    const server = await h.wsServer(workspaceWrite);
    const client = await server.connect();
    await client.initialize();
    const head = join(h.work, "HEAD");
    await writeFile(head, "ref: a\n");
    expect(await client.call("fs/watch", { watchId: "head", path: head })).toEqual({ path: head });
    expect(await client.call("fs/watch", { watchId: "dir", path: h.work })).toEqual({ path: h.work });
    const again = await client.request("fs/watch", { watchId: "head", path: head });
    expect(again.error).toEqual({ code: -32600, message: "watchId already exists: head" });

    // An editor's save: write a temporary file, rename it over the original.
    await writeFile(join(h.work, "HEAD.tmp"), "ref: b\n");
    const { rename } = await import("node:fs/promises");
    await rename(join(h.work, "HEAD.tmp"), head);
    const fileChange = await client.waitFor((m) => m.method === "fs/changed" && m.params.watchId === "head");
    expect(fileChange.params).toEqual({ watchId: "head", changedPaths: [head] });
    const dirChange = await client.waitFor(
      (m) => m.method === "fs/changed" && m.params.watchId === "dir" && m.params.changedPaths.includes(head),
    );
    expect(dirChange.params.changedPaths).toEqual([...dirChange.params.changedPaths].sort());

    expect(await client.call("fs/unwatch", { watchId: "head" })).toEqual({});
    expect(await client.call("fs/unwatch", { watchId: "head" })).toEqual({});
    const count = client.notifications("fs/changed").filter((m) => m.params.watchId === "head").length;
    await writeFile(head, "ref: c\n");
    // The directory watch still reports; the file watch does not any more.
    await client.waitFor(
      (m) =>
        m.method === "fs/changed" &&
        m.params.watchId === "dir" &&
        client.received.indexOf(m) > client.received.indexOf(dirChange),
    );
    expect(client.notifications("fs/changed").filter((m) => m.params.watchId === "head")).toHaveLength(count);
    const missing = await client.request("fs/watch", { watchId: "gone", path: join(h.work, "missing") });
    expect(missing.error?.code).toBe(-32603);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});
