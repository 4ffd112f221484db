/**
 * `tscodex features list | enable NAME | disable NAME`. Only the command definitions live here;
 * the work (features-actions.ts) is loaded when one runs.
 */
import type { CommandHost } from "./command-options.js";

/** Adds the `features` command group; each action reports its exit code to the host. */
export function registerFeaturesCommand({ program, globals, setExitCode }: CommandHost): void {
  const actions = () => import("./features-actions.js");
  const features = program
    .command("features")
    .description(
      "List the [features] flags (name, stage, effective value) and turn them on or off in config.toml",
    );
  features
    .command("list")
    .description("Every feature flag: name, stage, and whether it is on with this config")
    .action(async () => setExitCode(await (await actions()).listFeatures(globals())));
  features
    .command("enable")
    .description("Write `NAME = true` under [features] in config.toml")
    .argument("<name>", "the feature flag")
    .action(async (name: string) => setExitCode(await (await actions()).setFeature(name, true)));
  features
    .command("disable")
    .description("Write `NAME = false` under [features] in config.toml (a flag off by default loses its key)")
    .argument("<name>", "the feature flag")
    .action(async (name: string) => setExitCode(await (await actions()).setFeature(name, false)));
}
