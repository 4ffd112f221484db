/**
 * vitest setup (vitest.config.ts): fails a test during which an app-server test client received or
 * sent a message outside Codex's schemas (app-server-schema-rule.ts). Loads nothing heavy: the
 * rule's module is imported only by the test clients themselves.
 */
import { afterAll, afterEach, expect } from "vitest";

interface Rule {
  takeSchemaFailures(): string[];
}

/** The rule's module, when a test file has loaded it (it registers itself on the global). */
function rule(): Rule | undefined {
  return (globalThis as { __tscodexSchemaRule?: Rule }).__tscodexSchemaRule;
}

function assertNoFailures(): void {
  const failures = rule()?.takeSchemaFailures() ?? [];
  expect(failures, `messages outside Codex's app-server schemas:\n${failures.join("\n")}`).toEqual([]);
}

afterEach(assertNoFailures);
afterAll(assertNoFailures);
