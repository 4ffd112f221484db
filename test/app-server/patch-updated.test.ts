/**
 * `item/fileChange/patchUpdated` (Codex 0.171): while the model streams an apply_patch call, the
 * app-server tells the client which files the patch touches so far, before the fileChange item
 * starts (when the patch applies).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { customToolCall, message, turn } from "../support/fake-model-server.js";
import { runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

const PATCH = [
  "*** Begin Patch",
  "*** Add File: first.txt",
  "+one",
  "*** Add File: second.txt",
  "+two",
  "+three",
  "*** End Patch",
  "",
].join("\n");

describe("app-server: a patch as it streams", () => {
  it("sends item/fileChange/patchUpdated with the changes so far, then the fileChange item", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "danger-full-access",
    });
    h.model.enqueue(turn(customToolCall("apply_patch", PATCH, "call_p")), turn(message("patched")));
    const { turnId } = await runTurn(client, threadId, "write two files");
    const updates = client.notifications("item/fileChange/patchUpdated");
    expect(updates.length).toBeGreaterThanOrEqual(2);
    for (const update of updates) expect(update.params).toMatchObject({ threadId, turnId, itemId: "call_p" });
    // Each update knows at least as many files as the one before; the last knows the whole patch.
    const counts = updates.map((update) => update.params.changes.length);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(updates.at(-1)?.params.changes).toEqual([
      { path: join(h.work, "first.txt"), kind: { type: "add" }, diff: "one\n" },
      { path: join(h.work, "second.txt"), kind: { type: "add" }, diff: "two\nthree\n" },
    ]);
    const started = client.received.findIndex(
      (m) => m.method === "item/started" && m.params.item.type === "fileChange",
    );
    expect(started).toBeGreaterThan(client.received.indexOf(updates.at(-1) ?? {}));
  });
});
