/**
 * Context compaction: when a thread's context nears the model's window, summarise the history
 * with one tool-less model call and replace it with
 * [initial context items] + [recent user messages, bounded] + [the summary, as a user message].
 * The summary goes last so the model reads it as the state it continues from.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Config } from "../config/load.js";
import type { ModelClient, Prompt } from "../model/types.js";
import { loadBuiltinPrompt } from "../prompt/base-instructions.js";
import { type MessageItem, messageText, type ResponseItem, userMessage } from "../protocol/items.js";

/** How the summary message opens, so the model (and a reader of the rollout) knows what it is. */
export const SUMMARY_PREFIX = "Summary of the conversation so far:";

/** Recent user messages kept verbatim after a compaction, by total characters. */
export const KEPT_USER_MESSAGE_CHARS = 20_000;

/** Auto-compaction threshold as a share of the context window, when no limit is configured. */
export const AUTO_COMPACT_RATIO = 0.9;

export interface CompactionSettings {
  /** The instruction sent to summarise (config compact_prompt, else prompts/compact.md). */
  prompt: string;
  /** Compact before a request once the last response's tokens reach this; null: never. */
  autoLimit: number | null;
}

/** `model_auto_compact_token_limit` if set, else 90% of the context window, else never. */
export function autoCompactLimit(contextWindow: number | null, configured?: number): number | null {
  if (configured !== undefined) return configured;
  return contextWindow ? Math.floor(contextWindow * AUTO_COMPACT_RATIO) : null;
}

/** Compaction settings from config: compact_prompt, experimental_compact_prompt_file, the limit. */
export async function compactionSettings(
  config: Config,
  contextWindow: number | null,
): Promise<CompactionSettings> {
  const { prompt: configured, promptFile, autoTokenLimit } = config.compaction;
  let prompt = configured;
  if (!prompt && promptFile) {
    const path = resolve(config.home, promptFile);
    try {
      prompt = await readFile(path, "utf8");
    } catch (error) {
      throw new Error(`experimental_compact_prompt_file: cannot read ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  return {
    prompt: prompt ?? (await loadCompactPrompt()),
    autoLimit: autoCompactLimit(contextWindow, autoTokenLimit),
  };
}

/** The built-in compaction prompt (prompts/compact.md). */
export function loadCompactPrompt(): Promise<string> {
  return loadBuiltinPrompt("compact.md", "compaction prompt");
}

/** Ask the model for a summary of `history`; no tools are offered. Throws what the client throws. */
export async function summarize(
  client: ModelClient,
  instructions: string,
  history: readonly ResponseItem[],
  prompt: string,
  signal?: AbortSignal,
): Promise<string> {
  const request: Prompt = {
    instructions,
    input: [...history, userMessage(prompt)],
    tools: [],
    parallelToolCalls: false,
  };
  let parts: string[] = [];
  for await (const event of client.stream(request, signal ? { signal } : {})) {
    if (event.type === "stream_restart") parts = [];
    if (event.type === "output_item_done" && event.item.type === "message" && event.item.role === "assistant")
      parts.push(messageText(event.item));
    if (event.type === "completed") break;
  }
  const summary = parts.join("\n").trim();
  if (!summary) throw new Error("compaction failed: the model returned no summary");
  return summary;
}

/**
 * The items a thread opens with (permissions, developer instructions, AGENTS.md, environment):
 * the leading developer messages and context user messages, up to the environment context.
 */
export function initialContext(history: readonly ResponseItem[]): ResponseItem[] {
  const end = history.findIndex(
    (item) => isUserText(item) && messageText(item).startsWith("<environment_context>"),
  );
  if (end < 0) return [];
  const prefix = history.slice(0, end + 1);
  return prefix.every((item) => item.type === "message" && item.role !== "assistant") ? prefix : [];
}

/** The history that replaces `history` once `summary` is known. */
export function compactedHistory(history: readonly ResponseItem[], summary: string): ResponseItem[] {
  const context = initialContext(history);
  const kept: ResponseItem[] = [];
  let budget = KEPT_USER_MESSAGE_CHARS;
  for (let i = history.length - 1; i >= context.length && budget > 0; i--) {
    const item = history[i];
    if (!item || !isUserText(item)) continue;
    const text = messageText(item);
    // Earlier summaries and interruption notes are not the user's words.
    if (text.startsWith(SUMMARY_PREFIX) || text.startsWith("<turn_aborted>")) continue;
    kept.unshift(text.length <= budget ? item : userMessage(`${text.slice(0, budget)}\n[…truncated]`));
    budget -= text.length;
  }
  return [...context, ...kept, userMessage(`${SUMMARY_PREFIX}\n${summary}`)];
}

function isUserText(item: ResponseItem): item is MessageItem {
  return item.type === "message" && item.role === "user";
}
