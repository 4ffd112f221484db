/**
 * How a user turn's prompt enters the history: on the thread object's first turn, the load
 * warnings and SessionStart (its source: "startup", "resume" for a restored thread, "clear" for
 * one a client opened in place of a cleared one) with its contexts;
 * then UserPromptSubmit, which may block the prompt (it then never reaches the model or the
 * history); then the user message, the `<skill>` messages of the skills it mentions as `$name`,
 * and the hooks' additional contexts.
 */
import type { SessionStartSource } from "../hooks/index.js";
import { mentionedSkills, skillMessage } from "../prompt/skills.js";
import type { Event } from "../protocol/events.js";
import { developerMessage, type ResponseItem, userMessage } from "../protocol/items.js";
import type { HookPoints } from "./hook-points.js";
import type { ThreadServices } from "./services.js";
import type { UserInput } from "./settings.js";

export class PromptIntake {
  private sessionStarted = false;

  constructor(
    private readonly hooks: HookPoints | null,
    private readonly services: Pick<ThreadServices, "hooks" | "skills">,
    private readonly emit: (event: Event) => void,
    /** SessionStart's source, read when the first turn begins (a restore may change it). */
    private readonly source: () => SessionStartSource,
  ) {}

  /** Record turn `turnId`'s prompt; false when a hook blocked it (a warning says why). */
  async take(
    turnId: string,
    input: UserInput,
    record: (item: ResponseItem) => void,
    signal: AbortSignal,
  ): Promise<boolean> {
    await this.sessionStart(record, signal);
    const prompt = (await this.hooks?.userPromptSubmit(turnId, input.text, signal)) ?? {
      contexts: [],
      blocked: null,
    };
    if (prompt.blocked !== null) {
      this.emit({ type: "warning", message: prompt.blocked });
      return false;
    }
    record(userMessage(input.text, input.images ?? []));
    this.emit({ type: "user_message", message: input.text, images: input.images ?? [] });
    for (const text of await this.skillMessages(input.text)) record(userMessage(text));
    for (const text of prompt.contexts) record(developerMessage(text));
    return true;
  }

  private async sessionStart(record: (item: ResponseItem) => void, signal: AbortSignal): Promise<void> {
    if (this.sessionStarted) return;
    this.sessionStarted = true;
    const warnings = [
      ...(this.services.hooks?.loadWarnings ?? []),
      ...(this.services.skills?.loaded.warnings ?? []),
    ];
    for (const message of warnings) this.emit({ type: "warning", message });
    const contexts = (await this.hooks?.sessionStart(this.source(), signal)) ?? [];
    for (const text of contexts) record(developerMessage(text));
  }

  private async skillMessages(prompt: string): Promise<string[]> {
    const skills = this.services.skills?.loaded.skills ?? [];
    if (skills.length === 0 || !prompt.includes("$")) return [];
    const texts = await Promise.all(
      mentionedSkills(prompt, skills).map((skill) =>
        // A SKILL.md that cannot be injected (too large, not a file) is named, not sent in part.
        skillMessage(skill).catch((error: unknown) => {
          this.emit({
            type: "warning",
            message: `skill ${skill.name} not loaded: ${(error as Error).message}`,
          });
          return null;
        }),
      ),
    );
    return texts.filter((text): text is string => text !== null);
  }
}
