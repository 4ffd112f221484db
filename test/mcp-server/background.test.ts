/**
 * Background tasks: running until the run settles, then completed or failed with its result;
 * throws and rejections are captured, never unhandled.
 */
import { describe, expect, it } from "vitest";
import { BackgroundTasks } from "../../src/frontends/mcp-server/background.js";
import type { ServerToolResult } from "../../src/frontends/mcp-server/results.js";

const text = (value: string): ServerToolResult => ({ content: [{ type: "text", text: value }] });

function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe("background tasks", () => {
  const tasks = new BackgroundTasks();

  it("reports running, then completed with the result", async () => {
    const gate = deferred<ServerToolResult>();
    tasks.start("bg-ok", () => gate.promise);
    expect(tasks.status("bg-ok")).toEqual({ state: "running" });
    gate.resolve(text("done"));
    await tasks.settled("bg-ok");
    expect(tasks.status("bg-ok")).toEqual({ state: "completed", result: text("done") });
  });

  it("captures a rejection and a synchronous throw as failed isError results", async () => {
    tasks.start("bg-reject", () => Promise.reject(new Error("model exploded")));
    tasks.start("bg-throw", () => {
      throw new Error("bad setup");
    });
    await Promise.all([tasks.settled("bg-reject"), tasks.settled("bg-throw")]);
    expect(tasks.status("bg-reject")).toEqual({
      state: "failed",
      result: { content: [{ type: "text", text: "Background task failed: model exploded" }], isError: true },
    });
    expect(tasks.status("bg-throw")?.result?.content[0]).toEqual({
      type: "text",
      text: "Background task failed: bad setup",
    });
  });

  it("counts an isError result as failed and keeps it", async () => {
    const result: ServerToolResult = { ...text("turn failed"), isError: true };
    tasks.start("bg-error", async () => result);
    await tasks.settled("bg-error");
    expect(tasks.status("bg-error")).toEqual({ state: "failed", result });
  });

  it("is null for unknown threads and after forgetTask", async () => {
    expect(tasks.status("bg-none")).toBeNull();
    tasks.start("bg-forget", async () => text("x"));
    await tasks.settled("bg-forget");
    tasks.forget("bg-forget");
    expect(tasks.status("bg-forget")).toBeNull();
  });

  it("lets a newer task replace a finished one without the old one overwriting it", async () => {
    const slow = deferred<ServerToolResult>();
    tasks.start("bg-replace", () => slow.promise);
    tasks.start("bg-replace", async () => text("new"));
    await tasks.settled("bg-replace");
    slow.resolve(text("old"));
    await slow.promise;
    await new Promise((resolve) => setImmediate(resolve));
    expect(tasks.status("bg-replace")).toEqual({ state: "completed", result: text("new") });
  });
});
