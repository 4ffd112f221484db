/**
 * The built-in tools' specs (what the model sees), keyed by catalog variant, so a thread can
 * offer its tools without loading their modules (and zod, which their parameter schemas are
 * written in). From source they are computed here by loading every catalog entry (catalog.ts);
 * scripts/build.mjs replaces this module's source with the computed table, so the bundle loads
 * a tool's module only when the model first calls it (tools/registry.ts). No spec depends on
 * its factory's options: the context below holds placeholders the specs never read.
 */
import type { ToolSpec } from "../protocol/tool-spec.js";
import type { AgentCollab } from "./builtin/agents.js";
import { BUILTIN_TOOL_KEYS, BUILTIN_TOOLS, type BuiltinToolContext, type BuiltinToolKey } from "./catalog.js";
import type { ToolKind } from "./types.js";

export type { BuiltinToolKey } from "./catalog.js";

/** What a tool's definition shows before its module is loaded. */
export interface BuiltToolSpec {
  spec: ToolSpec;
  supportsParallel: boolean;
  /** Its handler's payload kinds. */
  kinds: readonly ToolKind[];
}

const notForCalls = (): never => {
  throw new Error("spec-only collab");
};
/** Tools built only to read their specs; never called. */
const specOnly: BuiltinToolContext = {
  home: "",
  collab: {
    spawn: notForCalls,
    send: notForCalls,
    resume: notForCalls,
    wait: notForCalls,
    close: notForCalls,
  },
} satisfies { collab: AgentCollab; home: string };

/** Every built-in tool's spec, computed from the catalog (the bundle carries the result). */
export async function computeToolSpecs(): Promise<Record<BuiltinToolKey, BuiltToolSpec>> {
  const entries = await Promise.all(
    BUILTIN_TOOL_KEYS.map(async (key): Promise<[BuiltinToolKey, BuiltToolSpec]> => {
      const tool = await BUILTIN_TOOLS[key](specOnly);
      return [key, { spec: tool.spec, supportsParallel: tool.supportsParallel, kinds: tool.handler.kinds }];
    }),
  );
  return Object.fromEntries(entries) as Record<BuiltinToolKey, BuiltToolSpec>;
}

// From source, the specs are ready once this module is: lazy tools read them synchronously.
const computed = await computeToolSpecs();

/** The specs: computed from source, the build's table in the bundle. */
export function builtToolSpecs(): Readonly<Record<BuiltinToolKey, BuiltToolSpec>> {
  return computed;
}
