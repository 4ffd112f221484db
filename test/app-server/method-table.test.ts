/**
 * The method table builds a method's schemas at their first use (issue 26): loading the table,
 * or checking one method's params, builds no other method's schemas. Observed through zod's
 * global registry, where a schema with a `meta({ id })` is entered when it is built.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseParams } from "../../src/frontends/app-server/params.js";
import { clientRequests } from "../../src/frontends/app-server/protocol/client-requests.js";

const built = (id: string) => z.globalRegistry._idmap.has(id);

describe("app-server method table", () => {
  it("builds a method's schemas on its first use, and only that method's", () => {
    // Named schemas of single methods' results and params (model/list, mcpServerStatus/list,
    // v1 listConversations, turn/start's collaborationMode): none is built by loading the table.
    expect(["Model", "McpServerStatus", "ConversationSummary", "ModeKind"].filter(built)).toEqual([]);

    const params = parseParams(clientRequests["thread/turns/list"].params(), { threadId: "t", limit: 2 });
    expect(params).toMatchObject({ threadId: "t", limit: 2 });
    expect(clientRequests["thread/turns/list"].params()).toBe(clientRequests["thread/turns/list"].params());
    expect(["Model", "McpServerStatus", "ConversationSummary", "ModeKind"].filter(built)).toEqual([]);

    clientRequests["model/list"].result();
    expect(built("Model")).toBe(true);
    expect(["McpServerStatus", "ConversationSummary", "ModeKind"].filter(built)).toEqual([]);
  });

  it("keeps Codex's -32602 wording for a lazily built schema", () => {
    expect(() => parseParams(clientRequests["turn/interrupt"].params(), { threadId: "t" })).toThrow(
      "Invalid request: missing field `turnId`",
    );
  });
});
