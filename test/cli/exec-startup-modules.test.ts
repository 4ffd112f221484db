/**
 * What `tscodex exec` loads (issue 16): a turn the model answers with a message loads no zod
 * (~5 MB of resident memory), and a tool's module (with zod) loads on the tool's first call.
 * The built CLI runs against the fake model server recording every module file it loads
 * (test/support/module-log.ts); a loaded bundle chunk is zod's when it holds zod's
 * code. The tool-call case shows the check does find zod when it is loaded.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { loadedModules, moduleLogEnv } from "../support/module-log.js";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
/** zod's sources (named in unminified bundles) or its core type's name (kept by a minifier). */
const ZOD_CODE = /node_modules\/zod\/|(["'`])\$ZodType\1/;

const h = useExecHarness({ execArgs: ["-s", "danger-full-access"] });

/** Runs exec on `prompt`; the bundle files it loaded (relative to dist/) and which hold zod. */
async function loadedBundleFiles(prompt: string): Promise<{ files: string[]; zod: string[] }> {
  const log = join(h.home, "modules.log");
  const result = await h.exec([prompt], { env: moduleLogEnv(log) });
  expect(result.stderr).not.toContain("Error");
  expect(result.code).toBe(0);
  const { files } = await loadedModules(log);
  const zod: string[] = [];
  for (const file of files) {
    if (ZOD_CODE.test(await readFile(join(DIST, file), "utf8"))) zod.push(file);
  }
  return { files, zod };
}

describe("exec start-up", () => {
  it("loads no zod for a turn without tool calls", async () => {
    h.server.enqueue(turn(message("hello there")));
    const { files, zod } = await loadedBundleFiles("say hello");
    expect(h.server.requests).toHaveLength(1);
    // The bundle ran (entry, exec command) and still offered every default tool.
    expect(files).toContain("cli.cjs");
    expect(files.some((file) => /^chunks\/exec-/.test(file))).toBe(true);
    expect(h.server.requests[0]?.toolNames).toEqual(expect.arrayContaining(["shell_command", "apply_patch"]));
    expect(zod).toEqual([]);
    // config.toml's loader and a thread's core come as one chunk each (scripts/build.mjs,
    // startPathGroups): 19 files here (util/errors.ts became a chunk of its own once the doctor
    // and login commands shared it), 33 before the build grouped them.
    expect(files.filter((file) => /^chunks\/(core|config)-/.test(file))).toHaveLength(2);
    expect(files.length).toBeLessThanOrEqual(19);
  });

  it("loads a tool's module, and zod with it, when the model calls the tool", async () => {
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "echo from-the-tool" }, "call_1")),
      turn(message("done")),
    );
    const { files, zod } = await loadedBundleFiles("run it");
    expect(h.outputOf(1, "call_1")).toContain("from-the-tool");
    expect(files.some((file) => /^chunks\/shell-command-/.test(file))).toBe(true);
    expect(zod.length).toBeGreaterThan(0);
  });
});
