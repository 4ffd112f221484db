/**
 * fuzzyFileSearch and its sessions against the real server: files and directories under the
 * roots ranked for a query (gitignored files left out), the session's per-query notifications
 * after each update's reply, and errors; every message checked against Codex 0.169's schema.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";

const h = useAppServerHarness();
/** The first schema check of a file compiles Codex's large schemas: seconds on a loaded machine. */
const FIRST_CHECK_TIMEOUT_MS = 60_000;

beforeEach(async () => {
  await mkdir(join(h.work, "src", "frontends"), { recursive: true });
  await mkdir(join(h.work, ".git"));
  await writeFile(join(h.work, ".gitignore"), "build/\n");
  await mkdir(join(h.work, "build"));
  for (const file of [
    "src/frontends/app-server.ts",
    "src/main.ts",
    "README.md",
    "build/app-server.js",
    ".env",
  ])
    await writeFile(join(h.work, file), "x\n");
});

describe("app-server: fuzzyFileSearch", () => {
  it(
    "ranks files and directories under the roots for the query, with the matched positions",
    async () => {
      const client = await h.stdio();
      const { files } = await client.call("fuzzyFileSearch", { query: "appsrv", roots: [h.work] });
      expect(files[0]).toEqual({
        root: h.work,
        path: "src/frontends/app-server.ts",
        match_type: "file",
        file_name: "app-server.ts",
        score: expect.any(Number),
        indices: [14, 15, 16, 18, 20, 21],
      });
      // .gitignore'd files are left out; hidden ones are in.
      expect(files.map((file: { path: string }) => file.path)).not.toContain("build/app-server.js");
      const env = await client.call("fuzzyFileSearch", { query: ".env", roots: [h.work] });
      expect(env.files.map((file: { path: string }) => file.path)).toContain(".env");
      const directories = await client.call("fuzzyFileSearch", { query: "frontends", roots: [h.work] });
      expect(directories.files[0]).toMatchObject({
        path: "src/frontends",
        match_type: "directory",
        file_name: "frontends",
      });
      expect(await client.call("fuzzyFileSearch", { query: "", roots: [h.work] })).toEqual({ files: [] });
      expect(await client.call("fuzzyFileSearch", { query: "zzzz", roots: [h.work] })).toEqual({ files: [] });
      expect(referenceSchemaFailures(client)).toEqual([]);
    },
    FIRST_CHECK_TIMEOUT_MS,
  );

  it("answers a session's queries with sessionUpdated then sessionCompleted, after each update's reply", async () => {
    const client = await h.stdio();
    expect(await client.call("fuzzyFileSearch/sessionStart", { sessionId: "s1", roots: [h.work] })).toEqual(
      {},
    );
    const reply = await client.request("fuzzyFileSearch/sessionUpdate", { sessionId: "s1", query: "main" });
    expect(reply.result).toEqual({});
    const updated = await client.waitFor((m) => m.method === "fuzzyFileSearch/sessionUpdated");
    expect(updated.params).toMatchObject({ sessionId: "s1", query: "main" });
    expect(updated.params.files[0]).toMatchObject({ path: "src/main.ts", file_name: "main.ts" });
    const completed = await client.waitFor((m) => m.method === "fuzzyFileSearch/sessionCompleted");
    expect(completed.params).toEqual({ sessionId: "s1" });
    expect(client.received.indexOf(reply)).toBeLessThan(client.received.indexOf(updated));
    expect(client.received.indexOf(updated)).toBeLessThan(client.received.indexOf(completed));

    await client.call("fuzzyFileSearch/sessionUpdate", { sessionId: "s1", query: "" });
    const empty = await client.waitFor(
      (m) => m.method === "fuzzyFileSearch/sessionUpdated" && m.params.query === "",
    );
    expect(empty.params.files).toEqual([]);

    expect(await client.call("fuzzyFileSearch/sessionStop", { sessionId: "s1" })).toEqual({});
    const stopped = await client.request("fuzzyFileSearch/sessionUpdate", { sessionId: "s1", query: "x" });
    expect(stopped.error).toEqual({ code: -32600, message: "fuzzy file search session not found: s1" });
    const unnamed = await client.request("fuzzyFileSearch/sessionStart", { sessionId: "", roots: [h.work] });
    expect(unnamed.error).toEqual({ code: -32600, message: "sessionId must not be empty" });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});
