/**
 * The suite's schema rule (test/support/app-server-schema-rule.ts) itself: it names the method,
 * the schema and ajv's error of an invalid message; it checks replies by their request's method;
 * it leaves a request the server rejected (a deliberately malformed one) alone.
 */
import { describe, expect, it } from "vitest";
import { ConversationSchemaCheck } from "../support/app-server-schema-rule.js";

const AT = { threadId: "01a2005b-f1c1-7330-8b78-4122bb98a157", turnId: "0" };
const ITEM = { type: "agentMessage", id: "m1", text: "hi" };

describe("the app-server schema rule", () => {
  it("fails a notification without 0.171's required fields, naming method, schema and error", () => {
    const check = new ConversationSchemaCheck();
    check.received({ method: "item/started", params: { ...AT, item: ITEM, startedAtMs: 1 } });
    expect(check.failures).toEqual([]);
    check.received({ method: "item/started", params: { ...AT, item: ITEM } });
    expect(check.failures).toHaveLength(1);
    expect(check.failures[0]).toContain(
      "notification item/started (0.171 schema-171/ServerNotification.json)",
    );
    expect(check.failures[0]).toContain("must have required property 'startedAtMs'");
  });

  it("checks 0.89's shape too where 0.89 has the method", () => {
    const check = new ConversationSchemaCheck();
    // Valid for 0.171 (items need no status there), not for 0.89's commandExecution.
    check.received({
      method: "item/completed",
      params: { ...AT, completedAtMs: 2, item: { ...ITEM, type: "reasoning", summary: "not a list" } },
    });
    expect(
      check.failures.some((failure) => failure.includes("(0.89 schema-089/ServerNotification.json)")),
    ).toBe(true);
  });

  it("checks a reply against its request's method, and a request only when the server accepted it", () => {
    const check = new ConversationSchemaCheck();
    check.sent({ id: 1, method: "thread/unsubscribe", params: { threadId: AT.threadId } });
    check.received({ id: 1, result: { status: "gone" } });
    expect(check.failures).toHaveLength(1);
    expect(check.failures[0]).toContain(
      "reply to thread/unsubscribe (0.171 schema-171/v2/ThreadUnsubscribeResponse.json)",
    );
    const rejected = new ConversationSchemaCheck();
    rejected.sent({ id: 2, method: "thread/unsubscribe", params: { threadId: 7 } });
    rejected.received({ id: 2, error: { code: -32600, message: "bad threadId" } });
    expect(rejected.failures).toEqual([]);
    const accepted = new ConversationSchemaCheck();
    accepted.sent({ id: 3, method: "thread/unsubscribe", params: { threadId: 7 } });
    accepted.received({ id: 3, result: { status: "notLoaded" } });
    expect(accepted.failures).toHaveLength(1);
    expect(accepted.failures[0]).toContain(
      "request thread/unsubscribe (0.171 schema-171/ClientRequest.json)",
    );
  });
});
