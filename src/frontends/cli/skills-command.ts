/**
 * `tscodex skills list`: the skills a thread started here would get (name, description, path,
 * root; those `[[skills.config]]` turned off marked disabled), and the SKILL.md files skipped
 * with the reason.
 */
import type { Command } from "commander";

/** Names, descriptions and paths come from SKILL.md files a cloned repo controls: shown visibly. */
async function listSkills(options: { json?: boolean }): Promise<number> {
  const { loadConfig, tscodexHome } = await import("../../config/load.js");
  const { visibleLine } = await import("../common/terminal-text.js");
  const { loadSkills } = await import("../../prompt/skills.js");
  // A config that does not load still lets the skills be listed (all enabled).
  const config = await loadConfig({ env: process.env }).catch(() => null);
  const { skills, warnings } = await loadSkills({
    home: config?.home ?? tscodexHome(),
    cwd: process.cwd(),
    env: process.env,
    settings: config?.skillSettings,
  });
  for (const warning of warnings) process.stderr.write(`warning: ${visibleLine(warning)}\n`);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(skills, null, 2)}\n`);
    return 0;
  }
  if (skills.length === 0) process.stdout.write("No skills found.\n");
  for (const skill of skills) {
    process.stdout.write(
      `${visibleLine(skill.name)}: ${visibleLine(skill.description)}${skill.enabled ? "" : " (disabled)"}\n` +
        `  path: ${visibleLine(skill.path)}\n  root: ${visibleLine(skill.root)}\n`,
    );
  }
  return 0;
}

/** Adds the `skills` command group to `program`; `setExitCode` receives each action's exit code. */
export function registerSkillsCommand(program: Command, setExitCode: (code: number) => void): void {
  const skills = program.command("skills").description("The SKILL.md skill packs the model is offered here");
  skills
    .command("list")
    .description("Each skill's name, description, path and root (bad SKILL.md files are named on stderr)")
    .option("--json", "print a JSON array")
    .action(async (options: { json?: boolean }) => setExitCode(await listSkills(options)));
}
