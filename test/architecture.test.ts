/**
 * The layer graph of src/: no import cycles, and imports only point down
 * (frontends → session → store → policy → hooks → tools → mcp/exec/apply-patch → prompt → telemetry → config → model →
 * network-proxy → protocol).
 * Type-only imports count too: they are dependencies of the design even when erased.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../src");

/** Lowest first. A module may import its own layer and the layers before it. */
const LAYERS = [
  "protocol",
  "util",
  "network-proxy",
  "version.ts",
  "model",
  "config",
  "telemetry",
  "prompt",
  "apply-patch",
  "exec",
  "mcp",
  "tools",
  "hooks",
  "policy",
  "store",
  "session",
  "frontends",
  "agent.ts",
  "index.ts",
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Relative imports of a file (static, re-exports and dynamic), as paths below src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+"(\.[^"]+)"/g),
    ...text.matchAll(/import\(\s*"(\.[^"]+)"\s*\)/g),
  ].map((match) => match[1] ?? "");
  return specifiers.map((specifier) =>
    relative(SRC, resolve(dirname(file), specifier.replace(/\.js$/, ".ts"))),
  );
}

const graph = new Map(sourceFiles(SRC).map((file) => [relative(SRC, file), importsOf(file)]));
const layerOf = (path: string) => LAYERS.indexOf(path.split("/")[0] ?? "");

describe("src/ layer graph", () => {
  it("every module belongs to a known layer", () => {
    expect([...graph.keys()].filter((path) => layerOf(path) < 0)).toEqual([]);
  });

  it("imports point down only", () => {
    const upward: string[] = [];
    for (const [from, targets] of graph) {
      for (const to of targets) if (layerOf(to) > layerOf(from)) upward.push(`${from} -> ${to}`);
    }
    expect(upward).toEqual([]);
  });

  it("reaches storage from above the session layer only through src/store/index.ts", () => {
    const storeIndex = join("store", "index.ts");
    const internal: string[] = [];
    for (const [from, targets] of graph) {
      if (layerOf(from) <= layerOf("session")) continue;
      for (const to of targets)
        if (layerOf(to) === layerOf("store") && to !== storeIndex) internal.push(`${from} -> ${to}`);
    }
    expect(internal).toEqual([]);
  });

  it("has no import cycles", () => {
    expect(cycles(graph)).toEqual([]);
  });
});

/** Strongly connected components of more than one module (Tarjan). */
function cycles(edges: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!edges.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}
