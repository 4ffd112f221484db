/**
 * The work behind `tscodex features …`, in Codex 0.171's shapes (cli-parity.md Part 1 §6):
 * `list` prints one line per flag, sorted by name, columns padded to the longest name and stage
 * plus two; `enable` / `disable` edit `[features]` in `$TSCODEX_HOME/config.toml`, keeping the
 * rest of the file (features-edit.ts).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FEATURES, type FeatureInfo, type FeatureStage, featureEnabled } from "../../config/features.js";
import { setFeatureFlag } from "../../config/features-edit.js";
import { ConfigError, loadConfig, tscodexHome } from "../../config/load.js";
import { ConfigOverrideError, parseOverride } from "../../config/overrides.js";
import { readTextOrEmpty } from "../../util/files.js";
import { visibleLine } from "../common/terminal-text.js";
import { globalConfig } from "./command-options.js";
import type { ExecCliOptions } from "./exec.js";

/** Codex's words for a flag's stage (tscodex's `beta` is Codex's `experimental`). */
const STAGE_LABELS: Record<FeatureStage, string> = {
  stable: "stable",
  beta: "experimental",
  underDevelopment: "under development",
  deprecated: "deprecated",
  removed: "removed",
};

/** `features list`: `name  stage  true|false`, the value as config (and -c, --enable) sets it. */
export async function listFeatures(globals: Partial<ExecCliOptions>): Promise<number> {
  let features: Record<string, boolean>;
  try {
    const config = await loadConfig({ overrides: globalConfig(globals).map(parseOverride) });
    features = config.features;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ConfigOverrideError) {
      process.stderr.write(`tscodex: ${visibleLine(error.message)}\n`);
      return 1;
    }
    throw error;
  }
  const sorted = [...FEATURES].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const nameWidth = Math.max(...sorted.map((feature) => feature.name.length)) + 2;
  const stageWidth = Math.max(...sorted.map((feature) => STAGE_LABELS[feature.stage].length)) + 2;
  for (const feature of sorted) {
    const stage = STAGE_LABELS[feature.stage];
    process.stdout.write(
      `${feature.name.padEnd(nameWidth)}${stage.padEnd(stageWidth)}${featureEnabled(feature, features)}\n`,
    );
  }
  return 0;
}

/**
 * `features enable|disable NAME`: `NAME = true|false` under `[features]`; disabling a flag that
 * is off by default removes its key instead (as Codex does).
 */
export async function setFeature(name: string, on: boolean): Promise<number> {
  const feature: FeatureInfo | undefined = FEATURES.find((entry) => entry.name === name);
  if (!feature) {
    process.stderr.write(`tscodex: Unknown feature flag: ${visibleLine(name)}\n`);
    return 1;
  }
  const home = tscodexHome();
  const path = join(home, "config.toml");
  const value = on || feature.defaultEnabled ? on : undefined;
  let edited: string;
  try {
    edited = setFeatureFlag(await readTextOrEmpty(path), name, value).text;
  } catch (error) {
    // The file does not parse: say so rather than rewrite it.
    process.stderr.write(`tscodex: ${visibleLine(`${path}: ${(error as Error).message}`)}\n`);
    return 1;
  }
  await mkdir(home, { recursive: true });
  await writeFile(path, edited);
  process.stdout.write(`${on ? "Enabled" : "Disabled"} feature \`${name}\` in config.toml.\n`);
  if (on && feature.stage === "underDevelopment") {
    process.stderr.write(
      `Under-development features enabled: ${name}. Under-development features are incomplete and may behave unpredictably. To suppress this warning, set \`suppress_unstable_features_warning = true\` in ${path}.\n`,
    );
  }
  return 0;
}
