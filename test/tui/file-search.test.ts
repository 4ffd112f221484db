/**
 * The `@` menu's server-side file search: a Codex 0.169 search session (listed once, answered by
 * `fuzzyFileSearch/sessionUpdated`, started again after a turn or for another cwd), and one-shot
 * `fuzzyFileSearch` requests for a server without sessions. Directories are left out.
 */
import { describe, expect, it } from "vitest";
import { ServerFileSearch } from "../../src/frontends/tui/file-search.js";
import { METHOD_NOT_FOUND, RpcCallError } from "../../src/frontends/tui/rpc-client.js";
import { notification } from "./notify.js";

type Params = Record<string, unknown>;

const files = [
  { root: "/srv", path: "src/main.ts", match_type: "file", file_name: "main.ts", score: 9 },
  { root: "/srv", path: "src", match_type: "directory", file_name: "src", score: 5 },
  { root: "/srv", path: "main.go", file_name: "main.go", score: 3 },
];

function fakeServer(options: { sessions: boolean }) {
  const calls: { method: string; params: Params }[] = [];
  const rpc = async (method: string, params: Params): Promise<Params> => {
    calls.push({ method, params });
    if (method.startsWith("fuzzyFileSearch/session") && !options.sessions)
      throw new RpcCallError(METHOD_NOT_FOUND, `method not found: ${method}`);
    if (method === "fuzzyFileSearch") return { files };
    return {};
  };
  return { calls, rpc };
}

describe("ServerFileSearch", () => {
  it("uses one search session: each query is answered by its sessionUpdated notification", async () => {
    const server = fakeServer({ sessions: true });
    let root = "/srv";
    const search = new ServerFileSearch(server.rpc, () => root);
    const first = search.search("ma");
    const second = search.search("mai");
    await new Promise((resolve) => setImmediate(resolve));
    expect(
      search.onNotification(
        notification("fuzzyFileSearch/sessionUpdated", { sessionId: "other", query: "mai", files }),
      ),
    ).toBe(true);
    const sessionId = server.calls[0]?.params.sessionId;
    search.onNotification(notification("fuzzyFileSearch/sessionUpdated", { sessionId, query: "mai", files }));
    expect(await first).toBeNull();
    expect(await second).toEqual(["src/main.ts", "main.go"]);
    expect(server.calls.filter((c) => c.method === "fuzzyFileSearch/sessionStart")).toHaveLength(1);
    expect(server.calls[0]?.params).toEqual({ sessionId, roots: ["/srv"] });
    expect(search.onNotification(notification("turn/completed", { threadId: "t", turn: { id: "u" } }))).toBe(
      false,
    );

    // After a turn (files may have changed) or in another cwd, the session lists again.
    search.refresh();
    const third = search.search("x");
    await new Promise((resolve) => setImmediate(resolve));
    search.onNotification(
      notification("fuzzyFileSearch/sessionUpdated", { sessionId, query: "x", files: [] }),
    );
    expect(await third).toEqual([]);
    root = "/other";
    const fourth = search.search("y");
    await new Promise((resolve) => setImmediate(resolve));
    search.onNotification(
      notification("fuzzyFileSearch/sessionUpdated", { sessionId, query: "y", files: [] }),
    );
    await fourth;
    const starts = server.calls.filter((c) => c.method === "fuzzyFileSearch/sessionStart");
    expect(starts.map((c) => c.params.roots)).toEqual([["/srv"], ["/srv"], ["/other"]]);
  });

  it("falls back to one-shot fuzzyFileSearch on a server without sessions", async () => {
    const server = fakeServer({ sessions: false });
    const search = new ServerFileSearch(server.rpc, () => "/srv");
    expect(await search.search("ma")).toEqual(["src/main.ts", "main.go"]);
    expect(await search.search("mai")).toEqual(["src/main.ts", "main.go"]);
    const oneShots = server.calls.filter((c) => c.method === "fuzzyFileSearch");
    expect(oneShots.map((c) => c.params.query)).toEqual(["ma", "mai"]);
    expect(oneShots[0]?.params).toMatchObject({ roots: ["/srv"], cancellationToken: expect.any(String) });
    // Sessions are tried once, not on every keystroke.
    expect(server.calls.filter((c) => c.method === "fuzzyFileSearch/sessionStart")).toHaveLength(1);
  });

  it("searches nothing before a thread is open", async () => {
    const server = fakeServer({ sessions: true });
    expect(await new ServerFileSearch(server.rpc, () => null).search("a")).toBeNull();
    expect(server.calls).toEqual([]);
  });
});
