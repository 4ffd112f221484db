/**
 * Every method a client generated from Codex 0.171's schema can call is either served by the
 * app-server's method table or named in the README's "Not served, and why" table (issue 38):
 * a method Codex adds cannot slip in unanswered and undocumented.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { clientRequests } from "../../src/frontends/app-server/protocol/client-requests.js";
import { readReferenceJson } from "../support/reference.js";

/** The `method` enum values anywhere in a JSON Schema. */
function methodsOf(schema: unknown): Set<string> {
  const found = new Set<string>();
  const walk = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    const method = (node as { properties?: { method?: { enum?: unknown } } }).properties?.method?.enum;
    if (Array.isArray(method)) for (const name of method) if (typeof name === "string") found.add(name);
    for (const child of Object.values(node)) walk(child);
  };
  walk(schema);
  return found;
}

/** The method names and `prefix/*` patterns in the README's "Not served, and why" table. */
async function notServedPatterns(): Promise<string[]> {
  const readme = await readFile(fileURLToPath(new URL("../../README.md", import.meta.url)), "utf8");
  const start = readme.indexOf("Not served, and why:");
  expect(start, "the README's app-server section has its 'Not served, and why:' table").toBeGreaterThan(0);
  const table = readme
    .slice(start)
    .split("\n")
    .slice(1)
    .filter((line, index) => index < 3 || line.startsWith("|"));
  const rows = table.filter((line) => line.startsWith("| `"));
  return rows.flatMap((row) =>
    [...(row.split(" | ")[0] ?? "").matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ""),
  );
}

function covered(method: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) =>
    pattern.endsWith("*") ? method.startsWith(pattern.slice(0, -1)) : pattern === method,
  );
}

describe("Codex 0.171's client methods", () => {
  it("are each served, or named in the README's table of what is not served", async () => {
    const methods = methodsOf(readReferenceJson("app-server/schema-171/ClientRequest.json"));
    expect(methods.size).toBeGreaterThan(100);
    const patterns = await notServedPatterns();
    const served = new Set(Object.keys(clientRequests));
    const missing = [...methods].filter((method) => !served.has(method) && !covered(method, patterns));
    expect(missing).toEqual([]);
  });
});
