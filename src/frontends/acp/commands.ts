/**
 * The session's slash commands (`available_commands_update`): run here when a prompt is one of
 * them. `/compact` summarises the thread, `/status` tells what the session runs with, `/skills`
 * lists the skills found for its directory, `/review` reviews the working tree's changes in this
 * session (Codex's review prompt; the findings come back as the agent's message).
 */
import type { AvailableCommand, PromptResponse } from "@agentclientprotocol/sdk";
import { enabledSkills, loadSkills } from "../../prompt/skills.js";
import { reviewPrompt } from "../../session/review.js";
import type { AcpSession } from "./session.js";

export const COMMANDS: AvailableCommand[] = [
  {
    name: "review",
    description: "Review the working tree's uncommitted changes",
    input: { hint: "optional focus" },
  },
  { name: "compact", description: "Summarise the conversation to free context" },
  { name: "status", description: "Show the model, approval mode and token usage of this session" },
  { name: "skills", description: "List the skills available in this directory" },
];

/** The command a prompt names (`/status`, `/review focus`), or null for a plain prompt. */
export function slashCommand(text: string): { name: string; rest: string } | null {
  const match = /^\/([a-z-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match?.[1] || !COMMANDS.some((command) => command.name === match[1])) return null;
  return { name: match[1], rest: match[2]?.trim() ?? "" };
}

export async function runCommand(
  session: AcpSession,
  command: { name: string; rest: string },
): Promise<PromptResponse> {
  const say = (text: string) =>
    session.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  switch (command.name) {
    case "compact":
      await session.thread.compact();
      say("The conversation was summarised.");
      return { stopReason: "end_turn" };
    case "status": {
      const usage = session.thread.totalUsage;
      const choices = session.currentChoices;
      say(
        [
          `Session: ${session.id}`,
          `Directory: ${session.thread.cwd}`,
          `Model: ${choices.model}${choices.effort ? ` (reasoning ${choices.effort})` : ""}`,
          `Approval mode: ${choices.mode}`,
          `Tokens used: ${usage.input_tokens} in, ${usage.output_tokens} out`,
        ].join("\n"),
      );
      return { stopReason: "end_turn" };
    }
    case "skills": {
      const { config } = session.host;
      const loaded = await loadSkills({
        home: config.home,
        cwd: session.thread.cwd,
        env: process.env,
        settings: config.skillSettings,
      });
      const skills = enabledSkills(loaded).skills;
      say(
        skills.length === 0
          ? "No skills found for this directory."
          : skills.map((skill) => `- $${skill.name}: ${skill.description}`).join("\n"),
      );
      return { stopReason: "end_turn" };
    }
    default: {
      const target = command.rest
        ? { type: "custom" as const, instructions: command.rest }
        : { type: "uncommitted" as const };
      return session.prompt({ text: await reviewPrompt(target, session.thread.cwd) });
    }
  }
}
