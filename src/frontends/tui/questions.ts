/**
 * A `request_user_input` question from the server (item/tool/requestUserInput), asked in the
 * UI: each question in turn above the composer; the composer's text (or an option's number)
 * answers it; Esc declines them all (the server tells the model the user declined).
 */
import { visibleLine, visibleText } from "../common/terminal-text.js";
import type { Composer } from "./composer.js";
import { type Style, wrapLine } from "./style.js";
import type { View } from "./views.js";
import type { UserInputParams } from "./wire.js";

export type Question = UserInputParams["questions"][number];

/** A question asked above the composer: Enter gives it the composer's text, Esc declines. */
export interface Prompt {
  /** Takes an answer; true once the prompt is done (answered in full). */
  answer(text: string): boolean;
  decline(): void;
  rows(style: Style, width: number): string[];
}

export type Answers = { answers: Record<string, { answers: string[] }> };

export class QuestionPrompt implements Prompt {
  private index = 0;
  private readonly answers: Answers["answers"] = {};

  constructor(
    private readonly questions: Question[],
    private readonly resolve: (answers: Answers) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  /** Records an answer to the current question; true once every question has one. */
  answer(text: string): boolean {
    const question = this.questions[this.index];
    if (!question) return true;
    const trimmed = text.trim();
    const picked = /^\d+$/.test(trimmed) ? question.options?.[Number(trimmed) - 1]?.label : undefined;
    this.answers[question.id] = { answers: [picked ?? trimmed] };
    this.index++;
    if (this.index < this.questions.length) return false;
    this.resolve({ answers: this.answers });
    return true;
  }

  decline(): void {
    this.reject(new Error("the user declined to answer"));
  }

  rows(style: Style, width: number): string[] {
    const question = this.questions[this.index];
    if (!question) return [];
    // The model wrote the question and its options: shown visibly, answered with the exact label.
    const lines = [
      style.bold(
        style.yellow(`${visibleLine(question.header)} (${this.index + 1}/${this.questions.length})`),
      ),
      ...visibleText(question.question).split("\n"),
    ];
    question.options?.forEach((option, i) => {
      const description = option.description ? style.dim(` — ${visibleLine(option.description)}`) : "";
      lines.push(`  ${style.bold(String(i + 1))}. ${visibleLine(option.label)}${description}`);
    });
    lines.push(style.dim("type an answer (or an option's number) and press Enter · Esc declines"));
    return lines.flatMap((line) => wrapLine(line, width));
  }
}

/**
 * `prompt` as a view above the composer: Enter gives it the composer's text, Esc declines; the
 * other keys (and Enter/Esc while the `@` menu is open: `menuOpen`) edit the composer.
 */
export function promptView(prompt: Prompt, composer: Composer, menuOpen: () => boolean): View {
  return {
    onKey: (key) => {
      if (menuOpen() || (key.name !== "enter" && key.name !== "escape")) return "passed";
      if (key.name === "escape") {
        prompt.decline();
        return "closed";
      }
      return prompt.answer(composer.take()) ? "closed" : "consumed";
    },
    rows: (style, width) => prompt.rows(style, width),
  };
}
