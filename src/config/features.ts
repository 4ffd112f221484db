/**
 * The `[features]` flags tscodex reads (Codex's names), with how settled each one is and what it
 * does by default. Listed by the app-server's `experimentalFeature/list`; a config that turns on
 * a deprecated one gets a deprecation notice.
 */

export type FeatureStage = "beta" | "underDevelopment" | "stable" | "deprecated" | "removed";

export interface FeatureInfo {
  name: string;
  stage: FeatureStage;
  displayName: string;
  description: string;
  defaultEnabled: boolean;
  /** For a deprecated flag: what to set instead. */
  replacement?: string;
}

export const FEATURES: readonly FeatureInfo[] = [
  {
    name: "shell_tool",
    stage: "stable",
    displayName: "Shell tool",
    description: "Offer the model a shell tool (shell_command, or shell for older models).",
    defaultEnabled: true,
  },
  {
    name: "unified_exec",
    stage: "beta",
    displayName: "Unified exec",
    description: "Interactive terminal sessions (exec_command + write_stdin) in place of shell_command.",
    defaultEnabled: false,
  },
  {
    name: "apply_patch_freeform",
    stage: "beta",
    displayName: "Freeform apply_patch",
    description: "Offer apply_patch as a grammar-constrained custom tool to every model.",
    defaultEnabled: false,
  },
  {
    name: "collaboration_modes",
    stage: "underDevelopment",
    displayName: "Collaboration modes",
    description: "Let the model ask the user questions (request_user_input).",
    defaultEnabled: false,
  },
  {
    name: "collab",
    stage: "beta",
    displayName: "Sub-agents",
    description: "Let the model spawn and steer sub-agents (spawn_agent, send_input, wait, close_agent).",
    defaultEnabled: false,
  },
  {
    name: "file_tools",
    stage: "underDevelopment",
    displayName: "File tools",
    description: "Offer read_file, list_dir and grep_files whatever the model's metadata says.",
    defaultEnabled: false,
  },
  {
    name: "web_search_request",
    stage: "deprecated",
    displayName: "Live web search",
    description: "Offer the provider's web_search tool with live access.",
    defaultEnabled: false,
    replacement: 'web_search = "live"',
  },
  {
    name: "web_search_cached",
    stage: "deprecated",
    displayName: "Cached web search",
    description: "Offer the provider's web_search tool with cached results only.",
    defaultEnabled: false,
    replacement: 'web_search = "cached"',
  },
];

/** Whether `feature` is on under `features` (the resolved `[features]` table). */
export function featureEnabled(feature: FeatureInfo, features: Record<string, boolean>): boolean {
  return features[feature.name] ?? feature.defaultEnabled;
}

/** A setting that still works but has a newer spelling. */
export interface Deprecation {
  summary: string;
  details: string;
}

/** The deprecated flags `features` (as the user wrote them) sets, each with what to use instead. */
export function deprecatedFeatures(features: Record<string, boolean> | undefined): Deprecation[] {
  if (!features) return [];
  return FEATURES.filter((feature) => feature.replacement && Object.hasOwn(features, feature.name)).map(
    (feature) => ({
      summary: `\`features.${feature.name}\` is deprecated`,
      details: `Set \`${feature.replacement}\` instead (top level of config.toml).`,
    }),
  );
}
