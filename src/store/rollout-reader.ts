/**
 * Reading rollouts back: a parse boundary, so every line is validated. A line that does not parse
 * (a torn last line after a crash, a hand edit) is skipped and counted, never fatal.
 * Flow: text → lines (split on "\n") → validated RolloutLine[] → replay → StoredThread.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { clientToolResultSchema, clientToolSpecSchema } from "../protocol/client-tools-schema.js";
import type { ResponseItem } from "../protocol/items.js";
import type { RolloutLine } from "./rollout.js";
import { replayRollout, type StoredThread } from "./stored-thread.js";

export { linesUpToTurn, RolloutError, replayRollout, type StoredThread } from "./stored-thread.js";

const usageSchema = z.object({
  input_tokens: z.number(),
  cached_input_tokens: z.number(),
  output_tokens: z.number(),
  reasoning_output_tokens: z.number(),
  total_tokens: z.number(),
});

const textPart = z.looseObject({ type: z.string(), text: z.string().optional() });

// Loose objects: the fields the runtime relies on are checked, extra fields pass through.
const responseItemSchema = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("message"),
    role: z.enum(["user", "assistant", "developer", "system"]),
    content: z.array(textPart),
  }),
  z.looseObject({ type: z.literal("reasoning"), summary: z.array(textPart) }),
  z.looseObject({
    type: z.literal("function_call"),
    name: z.string(),
    arguments: z.string(),
    call_id: z.string(),
  }),
  z.looseObject({
    type: z.literal("custom_tool_call"),
    name: z.string(),
    input: z.string(),
    call_id: z.string(),
  }),
  z.looseObject({
    type: z.literal("local_shell_call"),
    call_id: z.string(),
    status: z.string(),
    action: z.looseObject({ command: z.array(z.string()) }),
  }),
  z.looseObject({ type: z.literal("web_search_call") }),
  z.looseObject({
    type: z.literal("function_call_output"),
    call_id: z.string(),
    output: z.union([z.string(), z.array(textPart)]),
  }),
  z.looseObject({ type: z.literal("custom_tool_call_output"), call_id: z.string(), output: z.string() }),
]);

const metaSchema = z.looseObject({
  id: z.string().min(1),
  created: z.string(),
  cwd: z.string(),
  model: z.string(),
  provider: z.string(),
  approval_policy: z.string(),
  sandbox_mode: z.string(),
  permission_profile: z.string().optional(),
  source: z.string(),
  instructions: z.string().optional(),
  forked_from: z.string().optional(),
  client_tools: z.array(clientToolSpecSchema).optional(),
  parent_id: z.string().optional(),
  depth: z.number().int().min(0).optional(),
  agent_type: z.string().optional(),
});

const fileChangeSchema = z.discriminatedUnion("type", [
  z.object({ type: z.enum(["add", "delete"]), content: z.string() }),
  z.object({ type: z.literal("update"), unified_diff: z.string(), move_path: z.string().nullish() }),
]);
const mcpInvocationSchema = z.object({ server: z.string(), tool: z.string(), arguments: z.unknown() });
const agentStatusSchema = z.union([
  z.enum(["pending_init", "running", "interrupted", "shutdown", "not_found"]),
  z.object({ completed: z.string().nullable() }),
  z.object({ errored: z.string() }),
]);

/** The ends of a turn's tool work (rollout.ts StoredToolEvent). */
const toolEventSchemas = [
  z.object({
    type: z.literal("exec_command_end"),
    call_id: z.string(),
    turn_id: z.string(),
    command: z.array(z.string()),
    cwd: z.string(),
    source: z.literal("user_shell").optional(),
    exit_code: z.number(),
    duration_ms: z.number(),
    aggregated_output: z.string(),
  }),
  z.object({
    type: z.literal("patch_apply_end"),
    call_id: z.string(),
    turn_id: z.string(),
    stdout: z.string(),
    stderr: z.string(),
    success: z.boolean(),
    changes: z.record(z.string(), fileChangeSchema),
  }),
  z.object({
    type: z.literal("mcp_tool_call_end"),
    call_id: z.string(),
    invocation: mcpInvocationSchema,
    duration_ms: z.number(),
    result: z.union([
      z.object({
        Ok: z.looseObject({
          content: z.array(z.looseObject({})),
          structuredContent: z.looseObject({}).nullish(),
          isError: z.boolean().nullish(),
        }),
      }),
      z.object({ Err: z.string() }),
    ]),
  }),
  z.object({
    type: z.literal("client_tool_call_end"),
    call_id: z.string(),
    turn_id: z.string(),
    tool: z.string(),
    arguments: z.unknown(),
    result: clientToolResultSchema,
    duration_ms: z.number(),
  }),
  z.object({
    type: z.literal("agent_spawned"),
    agent_id: z.string(),
    agent_type: z.string().nullable(),
    message: z.string(),
    depth: z.number(),
  }),
  z.object({ type: z.literal("agent_finished"), agent_id: z.string(), status: agentStatusSchema }),
] as const;

const eventSchema = z.discriminatedUnion("type", [
  ...toolEventSchemas,
  z.object({ type: z.literal("turn_started"), turn_id: z.string() }),
  z.object({ type: z.literal("turn_complete"), turn_id: z.string(), usage: usageSchema }),
  z.object({ type: z.literal("turn_aborted"), turn_id: z.string() }),
  z.object({ type: z.literal("turn_failed"), turn_id: z.string(), message: z.string() }),
  z.object({ type: z.literal("token_count"), last: usageSchema.nullable(), total: usageSchema }),
  z.object({ type: z.literal("user_message"), message: z.string() }),
  z.object({ type: z.literal("client_tools_changed"), tools: z.array(clientToolSpecSchema) }),
  z.object({
    type: z.enum(["entered_review_mode", "exited_review_mode"]),
    turn_id: z.string(),
    review: z.string(),
  }),
  z.object({
    type: z.literal("turn_parked"),
    turn_id: z.string(),
    call_ids: z.array(z.string()),
    usage: usageSchema,
  }),
  z.object({ type: z.literal("turn_continued"), turn_id: z.string() }),
  z.object({ type: z.literal("thread_name_updated"), thread_name: z.string().nullable() }),
  z.object({
    type: z.literal("thread_goal_updated"),
    goal: z
      .object({
        objective: z.string(),
        status: z.enum(["active", "paused", "blocked", "usageLimited", "budgetLimited", "complete"]),
        token_budget: z.number().int().nullable(),
        created_at: z.number().int(),
        updated_at: z.number().int(),
      })
      .nullable(),
  }),
  z.object({
    type: z.literal("thread_metadata_updated"),
    metadata: z.object({
      git_info: z
        .object({
          sha: z.string().nullable().optional(),
          branch: z.string().nullable().optional(),
          origin_url: z.string().nullable().optional(),
        })
        .nullable()
        .optional(),
      project_id: z.string().nullable().optional(),
      daybreak_enabled: z.boolean().nullable().optional(),
    }),
  }),
]);

const lineSchema = z.discriminatedUnion("type", [
  z.object({ timestamp: z.string(), type: z.literal("session_meta"), payload: metaSchema }),
  z.object({ timestamp: z.string(), type: z.literal("response_item"), payload: responseItemSchema }),
  z.object({ timestamp: z.string(), type: z.literal("event"), payload: eventSchema }),
  z.object({
    timestamp: z.string(),
    type: z.literal("compacted"),
    payload: z.object({ summary: z.string(), replacement_history: z.array(responseItemSchema) }),
  }),
]);

/**
 * `values` as history items, or the first problem ("item 2: ...") when one is not a Responses
 * API item the runtime can replay.
 */
export function checkResponseItems(
  values: readonly unknown[],
): { items: ResponseItem[] } | { problem: string } {
  const items: ResponseItem[] = [];
  for (const [index, value] of values.entries()) {
    const parsed = responseItemSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
      return { problem: `item ${index}: ${issue?.message ?? "not a response item"}${where}` };
    }
    items.push(parsed.data as ResponseItem);
  }
  return { items };
}

/** Validated lines of a rollout text; `skipped` counts lines that did not parse. */
export function parseRollout(text: string): { lines: RolloutLine[]; skipped: number } {
  const lines: RolloutLine[] = [];
  let skipped = 0;
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      skipped += 1;
      continue;
    }
    const line = validateLine(value);
    if (line) lines.push(line);
    else skipped += 1;
  }
  return { lines, skipped };
}

/** Validated lines from already-parsed values (database rows…); `skipped` counts the invalid ones. */
export function validateLines(values: unknown[]): { lines: RolloutLine[]; skipped: number } {
  const lines: RolloutLine[] = [];
  for (const value of values) {
    const line = validateLine(value);
    if (line) lines.push(line);
  }
  return { lines, skipped: values.length - lines.length };
}

function validateLine(value: unknown): RolloutLine | null {
  const parsed = lineSchema.safeParse(value);
  // The schema checks what the runtime relies on; the item types carry the same fields.
  return parsed.success ? (parsed.data as RolloutLine) : null;
}

/** Read and replay one rollout file. */
export async function readRollout(path: string): Promise<StoredThread> {
  const text = await readFile(path, "utf8");
  const { lines, skipped } = parseRollout(text);
  return replayRollout(path, lines, skipped);
}
