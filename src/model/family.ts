/**
 * What we know about a model from its slug: which shell and patch tools it was trained
 * on, how tool output is truncated for it, and which request knobs it takes
 * (reference: models/models-embedded-089.json and tool-specs/089/cfg-model-*.json).
 * Unknown slugs get the conservative legacy set, as Codex does.
 */
import type { TruncationPolicy } from "../protocol/policy.js";

export type ShellType = "shell_command" | "shell" | "local_shell" | "none";
export type ApplyPatchType = "freeform" | "function" | "none";

export interface ModelFamily {
  slug: string;
  shellType: ShellType;
  applyPatch: ApplyPatchType;
  truncation: TruncationPolicy;
  supportsParallelToolCalls: boolean;
  contextWindow: number | null;
  /** Responses `reasoning`: effort and summary, or null for non-reasoning models. */
  reasoning: { effort: string | null; summary: string } | null;
  defaultVerbosity: string | null;
  /**
   * Experimental tools the model was trained with (Codex's `experimental_supported_tools`):
   * any of `grep_files`, `read_file`, `list_dir`. None of the released models list any.
   */
  experimentalSupportedTools?: readonly ExperimentalTool[];
}

/** The experimental file tools, in the order Codex offers them. */
export const EXPERIMENTAL_TOOLS = ["grep_files", "read_file", "list_dir"] as const;
export type ExperimentalTool = (typeof EXPERIMENTAL_TOOLS)[number];

const TOKENS: TruncationPolicy = { mode: "tokens", limit: 10_000 };
const BYTES: TruncationPolicy = { mode: "bytes", limit: 10_000 };
const REASONING = { effort: "medium", summary: "auto" };

function codex(slug: string, parallel: boolean): ModelFamily {
  return {
    slug,
    shellType: "shell_command",
    applyPatch: "freeform",
    truncation: TOKENS,
    supportsParallelToolCalls: parallel,
    contextWindow: 272_000,
    reasoning: REASONING,
    defaultVerbosity: null,
  };
}

function gpt5General(slug: string, parallel: boolean): ModelFamily {
  return { ...codex(slug, parallel), truncation: BYTES, defaultVerbosity: "low" };
}

const KNOWN: ModelFamily[] = [
  codex("gpt-5.2-codex", true),
  gpt5General("gpt-5.2", true),
  codex("gpt-5.1-codex-max", false),
  codex("gpt-5.1-codex-mini", false),
  codex("gpt-5.1-codex", false),
  gpt5General("gpt-5.1", true),
  codex("gpt-5-codex-mini", false),
  codex("gpt-5-codex", false),
  {
    ...codex("gpt-5", false),
    shellType: "shell",
    applyPatch: "none",
    truncation: BYTES,
    defaultVerbosity: null,
  },
];

const LEGACY: Omit<ModelFamily, "slug"> = {
  shellType: "shell",
  applyPatch: "none",
  truncation: BYTES,
  supportsParallelToolCalls: false,
  contextWindow: null,
  reasoning: null,
  defaultVerbosity: null,
};

/** The slugs whose families are known (not guessed from a prefix), in Codex's list order. */
export function knownModelSlugs(): string[] {
  return KNOWN.map((family) => family.slug);
}

/** The reasoning efforts a model takes (none for a model without reasoning), as clients offer them. */
export function reasoningEfforts(slug: string): string[] {
  if (!findModelFamily(slug).reasoning) return [];
  return slug.includes("codex-mini") ? ["medium", "high"] : ["low", "medium", "high", "xhigh"];
}

/** The effort a model reasons at unless told otherwise (its family's, else medium); null without reasoning. */
export function defaultReasoningEffort(slug: string): string | null {
  const { reasoning } = findModelFamily(slug);
  return reasoning ? (reasoning.effort ?? "medium") : null;
}

/** Look a slug up: exact match first, then the longest known prefix (dated snapshots). */
export function findModelFamily(slug: string): ModelFamily {
  const exact = KNOWN.find((family) => family.slug === slug);
  if (exact) return exact;
  const prefixed = KNOWN.filter((family) => slug.startsWith(`${family.slug}-`)).sort(
    (a, b) => b.slug.length - a.slug.length,
  )[0];
  if (prefixed) return { ...prefixed, slug };
  if (slug.startsWith("codex-mini")) {
    return { ...LEGACY, slug, shellType: "local_shell", reasoning: { effort: null, summary: "auto" } };
  }
  if (/^o[34]/.test(slug)) return { ...LEGACY, slug, reasoning: { effort: null, summary: "auto" } };
  if (slug.startsWith("gpt-oss") || slug.includes("/gpt-oss")) {
    return { ...LEGACY, slug, applyPatch: "function", contextWindow: 96_000 };
  }
  return { ...LEGACY, slug };
}
