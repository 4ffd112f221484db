/**
 * Background tasks: running until the run settles, then completed or failed with its result;
 * throws and rejections are captured, never unhandled.
 */
import { describe, expect, it } from "vitest";
import {
  forgetTask,
  startBackgroundTask,
  taskSettled,
  taskStatus,
} from "../../src/frontends/mcp-server/background.js";
import type { ServerToolResult } from "../../src/frontends/mcp-server/server-tool.js";

const text = (value: string): ServerToolResult => ({ content: [{ type: "text", text: value }] });

function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe("background tasks", () => {
  it("reports running, then completed with the result", async () => {
    const gate = deferred<ServerToolResult>();
    startBackgroundTask("bg-ok", () => gate.promise);
    expect(taskStatus("bg-ok")).toEqual({ state: "running" });
    gate.resolve(text("done"));
    await taskSettled("bg-ok");
    expect(taskStatus("bg-ok")).toEqual({ state: "completed", result: text("done") });
  });

  it("captures a rejection and a synchronous throw as failed isError results", async () => {
    startBackgroundTask("bg-reject", () => Promise.reject(new Error("model exploded")));
    startBackgroundTask("bg-throw", () => {
      throw new Error("bad setup");
    });
    await Promise.all([taskSettled("bg-reject"), taskSettled("bg-throw")]);
    expect(taskStatus("bg-reject")).toEqual({
      state: "failed",
      result: { content: [{ type: "text", text: "Background task failed: model exploded" }], isError: true },
    });
    expect(taskStatus("bg-throw")?.result?.content[0]).toEqual({
      type: "text",
      text: "Background task failed: bad setup",
    });
  });

  it("counts an isError result as failed and keeps it", async () => {
    const result: ServerToolResult = { ...text("turn failed"), isError: true };
    startBackgroundTask("bg-error", async () => result);
    await taskSettled("bg-error");
    expect(taskStatus("bg-error")).toEqual({ state: "failed", result });
  });

  it("is null for unknown threads and after forgetTask", async () => {
    expect(taskStatus("bg-none")).toBeNull();
    startBackgroundTask("bg-forget", async () => text("x"));
    await taskSettled("bg-forget");
    forgetTask("bg-forget");
    expect(taskStatus("bg-forget")).toBeNull();
  });

  it("lets a newer task replace a finished one without the old one overwriting it", async () => {
    const slow = deferred<ServerToolResult>();
    startBackgroundTask("bg-replace", () => slow.promise);
    startBackgroundTask("bg-replace", async () => text("new"));
    await taskSettled("bg-replace");
    slow.resolve(text("old"));
    await slow.promise;
    await new Promise((resolve) => setImmediate(resolve));
    expect(taskStatus("bg-replace")).toEqual({ state: "completed", result: text("new") });
  });
});
