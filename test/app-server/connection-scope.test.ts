import { describe, expect, it } from "vitest";
import { ConnectionScope, type ScopeKey } from "../../src/frontends/app-server/connection-scope.js";

class Table {
  closed = 0;
  close(): void {
    this.closed++;
  }
}

describe("ConnectionScope", () => {
  it("makes one table per key and closes each once when the connection closes", () => {
    const scope = new ConnectionScope();
    const key: ScopeKey<Table> = { name: "t", create: () => new Table() };
    const table = scope.get(key);
    expect(scope.get(key)).toBe(table);
    scope.close();
    scope.close();
    expect(table.closed).toBe(1);
  });

  it("hands out closed tables after the connection closed, so nothing late keeps running", () => {
    const scope = new ConnectionScope();
    scope.close();
    expect(scope.get({ name: "late", create: () => new Table() }).closed).toBe(1);
  });
});
