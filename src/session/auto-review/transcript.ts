/**
 * The compact transcript the reviewer reads: the main thread's history split by trust.
 *
 * Trusted (may authorize an action): the user's messages, AGENTS.md, answers to
 * request_user_input. Every one is kept, each cut to ~2k tokens. Untrusted (evidence only):
 * assistant text, tool calls and their output, skills, summaries; only the most recent are kept
 * (at most 40 entries, ~1k tokens each, ~10k tokens for messages and ~10k for tool activity).
 * Every cut leaves a `<truncated omitted_approx_tokens=N/>` marker: inside an entry, or as a
 * line where dropped entries were.
 *
 * Each entry is one JSON line, so no text inside an entry (a tool output that prints
 * "[9] user: …") can pose as another entry or move into the trusted section.
 */

import { type FunctionCallOutputPayload, messageText, type ResponseItem } from "../../protocol/items.js";
import { SUMMARY_PREFIX } from "../compact.js";
import { approxTokens, cutText, truncationMarker } from "./truncate.js";

export const USER_ENTRY_TOKENS = 2_000;
export const RECENT_ENTRY_TOKENS = 1_000;
export const RECENT_MESSAGES_TOKENS = 10_000;
export const RECENT_TOOLS_TOKENS = 10_000;
export const MAX_RECENT_ENTRIES = 40;

/** Where an entry came from; the first three are trusted. */
export type EntrySource =
  | "user"
  | "agents_md"
  | "user_input_answer"
  | "assistant"
  | "tool_call"
  | "tool_output"
  | "skill"
  | "summary"
  | "note";

export interface TranscriptEntry {
  /** Position in the conversation (1-based), shared by both sections. */
  n: number;
  source: EntrySource;
  tool?: string;
  text: string;
}

export interface CompactTranscript {
  /** Rendered lines: one JSON entry each. */
  trusted: string[];
  /** Rendered lines: JSON entries and markers for dropped entries, oldest first. */
  untrusted: string[];
}

const TRUSTED: ReadonlySet<EntrySource> = new Set(["user", "agents_md", "user_input_answer"]);
const USER_INPUT_TOOL = "request_user_input";

/** The history as the reviewer reads it: trusted lines, then the recent untrusted ones. */
export function compactTranscript(history: readonly ResponseItem[]): CompactTranscript {
  const entries = transcriptEntries(history);
  const trusted = entries
    .filter((entry) => TRUSTED.has(entry.source))
    .map((entry) => renderEntry({ ...entry, text: cutText(entry.text, USER_ENTRY_TOKENS) }));
  const untrusted = recentEntries(entries.filter((entry) => !TRUSTED.has(entry.source)));
  return { trusted, untrusted };
}

/** The history as entries, in order; context the reviewer gets otherwise (or never) is left out. */
export function transcriptEntries(history: readonly ResponseItem[]): TranscriptEntry[] {
  const toolNames = new Map<string, string>();
  const entries: TranscriptEntry[] = [];
  const push = (entry: Omit<TranscriptEntry, "n">): void => {
    entries.push({ n: entries.length + 1, ...entry });
  };
  for (const item of history) {
    switch (item.type) {
      case "message": {
        const text = messageText(item);
        if (item.role === "assistant") push({ source: "assistant", text });
        else if (item.role === "user") {
          const source = userSource(text);
          if (source) push({ source, text });
        }
        // Developer and system messages are the session's own set-up (permissions, base
        // instructions): not part of what the user asked, and large.
        break;
      }
      case "function_call":
        toolNames.set(item.call_id, item.name);
        push({ source: "tool_call", tool: item.name, text: item.arguments });
        break;
      case "custom_tool_call":
        toolNames.set(item.call_id, item.name);
        push({ source: "tool_call", tool: item.name, text: item.input });
        break;
      case "local_shell_call":
        toolNames.set(item.call_id, "local_shell");
        push({ source: "tool_call", tool: "local_shell", text: JSON.stringify(item.action) });
        break;
      case "web_search_call":
        push({ source: "tool_call", tool: "web_search", text: JSON.stringify(item.action ?? {}) });
        break;
      case "function_call_output":
      case "custom_tool_call_output": {
        const tool = toolNames.get(item.call_id) ?? "unknown";
        const source = tool === USER_INPUT_TOOL ? "user_input_answer" : "tool_output";
        push({ source, tool, text: outputText(item.output) });
        break;
      }
      case "reasoning":
        break; // the model's private reasoning: often encrypted, never authority
    }
  }
  return entries;
}

/** How a user-role message counts: the user's words, AGENTS.md, or injected context. */
function userSource(text: string): EntrySource | null {
  if (text.startsWith("<environment_context>")) return null; // the reviewer is given the cwd itself
  if (text.startsWith("# AGENTS.md instructions for ")) return "agents_md";
  if (text.startsWith("<skill>")) return "skill";
  if (text.startsWith(SUMMARY_PREFIX)) return "summary";
  if (text.startsWith("<turn_aborted>")) return "note";
  return "user";
}

function outputText(output: FunctionCallOutputPayload): string {
  if (typeof output === "string") return output;
  return output.map((part) => (part.type === "input_text" ? part.text : "[image]")).join("\n");
}

/** The newest untrusted entries within the budgets, oldest first, dropped runs marked. */
function recentEntries(entries: TranscriptEntry[]): string[] {
  const budgets = { message: RECENT_MESSAGES_TOKENS, tool: RECENT_TOOLS_TOKENS };
  const kept = new Map<TranscriptEntry, string>();
  for (let i = entries.length - 1; i >= 0 && kept.size < MAX_RECENT_ENTRIES; i--) {
    const entry = entries[i] as TranscriptEntry;
    const pool = entry.source === "tool_call" || entry.source === "tool_output" ? "tool" : "message";
    const allowed = Math.min(RECENT_ENTRY_TOKENS, budgets[pool]);
    // A sliver of an entry says nothing; leave it out and mark it instead.
    if (allowed < 64) continue;
    const text = cutText(entry.text, allowed);
    budgets[pool] -= Math.min(approxTokens(entry.text), allowed);
    kept.set(entry, renderEntry({ ...entry, text }));
  }
  const lines: string[] = [];
  let omitted = 0;
  for (const entry of entries) {
    const line = kept.get(entry);
    if (line === undefined) {
      omitted += approxTokens(entry.text);
      continue;
    }
    if (omitted > 0) lines.push(truncationMarker(omitted));
    omitted = 0;
    lines.push(line);
  }
  if (omitted > 0) lines.push(truncationMarker(omitted));
  return lines;
}

function renderEntry(entry: TranscriptEntry): string {
  const { n, source, tool, text } = entry;
  return JSON.stringify(tool === undefined ? { n, source, text } : { n, source, tool, text });
}
