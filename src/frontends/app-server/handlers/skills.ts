/**
 * `skills/list`: the skills `tscodex skills list` shows (found as a new thread in that
 * directory finds them, the extra roots included), one entry per asked-for directory, each with
 * its `[[skills.config]]` state. Skills are read afresh on every call, so `forceReload` changes
 * nothing. The listed directories' roots are watched from then on (`skills/changed`).
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { loadSkills, type Skill } from "../../../prompt/skills.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import type { HandlerContext } from "./context.js";

type SkillMetadata = ResultOf<"skills/list">["data"][number]["skills"][number];

const LOAD_FAILURE = /^failed to load skill (.*?): (.*)$/s;

export async function skillsList(
  params: ParamsOf<"skills/list">,
  context: HandlerContext,
): Promise<ResultOf<"skills/list">> {
  const { config, env } = context.runtime;
  const cwds = params.cwds && params.cwds.length > 0 ? params.cwds : [process.cwd()];
  const homes = [resolve(config.home), ...(env.CODEX_HOME ? [resolve(env.CODEX_HOME)] : [])];
  const userRoots = [
    ...homes.map((home) => join(home, "skills")),
    join(env.HOME || homedir(), ".agents", "skills"),
    // Extra roots are the client's own user roots (Codex: extra user roots).
    ...context.runtime.skillExtraRoots,
  ];
  const systemRoots = homes.map((home) => join(home, "skills", ".system"));
  const data = await Promise.all(
    cwds.map(async (given) => {
      const cwd = resolve(given);
      // A client that listed them hears when they change on disk (watched before the reply).
      await context.runtime.watchSkillsOf(cwd);
      const { skills, warnings } = await loadSkills({
        home: config.home,
        cwd,
        env,
        settings: config.skillSettings,
        extraRoots: context.runtime.skillExtraRoots,
      });
      const scopeOf = (skill: Skill): SkillMetadata["scope"] =>
        systemRoots.includes(skill.root) ? "system" : userRoots.includes(skill.root) ? "user" : "repo";
      return {
        cwd,
        skills: skills.map((skill) => ({
          name: skill.name,
          description: skill.description,
          path: skill.path,
          scope: scopeOf(skill),
          enabled: skill.enabled,
        })),
        errors: warnings.map((warning) => {
          const [, path = "", message = warning] = LOAD_FAILURE.exec(warning) ?? [];
          return { path, message };
        }),
      };
    }),
  );
  return { data };
}
