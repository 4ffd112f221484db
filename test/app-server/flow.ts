/**
 * Helpers the app-server tests share: start a thread, run a turn to its end, and condense a
 * turn's notifications into one line each ("item/completed commandExecution completed") so a
 * test can compare the whole order with the reference transcript's.
 */
import type { AppClient, WireMessage } from "../support/app-server-client.js";

/** thread/start with the given params (cwd required); returns the thread id. */
export async function startThread(client: AppClient, params: Record<string, unknown>): Promise<string> {
  const result = await client.call("thread/start", params);
  return String(result.thread.id);
}

/** turn/start, then wait for its turn/completed; returns the turn id and that notification. */
export async function runTurn(
  client: AppClient,
  threadId: string,
  text: string,
  extra: Record<string, unknown> = {},
): Promise<{ turnId: string; completed: WireMessage }> {
  const from = client.received.length;
  const { turn } = await client.call("turn/start", { threadId, input: [{ type: "text", text }], ...extra });
  const turnId = String(turn.id);
  return { turnId, completed: await client.turnCompleted(turnId, from) };
}

/** One line per notification of turn `turnId` (token usage left out), in order. */
export function flow(client: AppClient, turnId: string): string[] {
  return client.received
    .filter((message) => message.id === undefined && inTurn(message, turnId))
    .filter((message) => message.method !== "thread/tokenUsage/updated")
    .map(describe);
}

function inTurn(message: WireMessage, turnId: string): boolean {
  const params = message.params ?? {};
  return params.turnId === turnId || params.turn?.id === turnId;
}

function describe(message: WireMessage): string {
  const item = message.params?.item;
  if (item) return [message.method, item.type, item.status].filter(Boolean).join(" ");
  if (message.method === "turn/completed") return `turn/completed ${message.params.turn.status}`;
  return String(message.method);
}

/** The items of turn `turnId` as completed, by type. */
export function completedItems(client: AppClient, turnId: string, type: string): WireMessage["params"][] {
  return client
    .notifications("item/completed")
    .filter((message) => message.params.turnId === turnId && message.params.item.type === type)
    .map((message) => message.params.item);
}

/** A ThreadItem as the wire carries it. */
export type WireItem = { id: string; type: string } & Record<string, unknown>;

/** `item` without the moments the live stream sent it at (not part of what the item is). */
export function withoutTimes(item: WireItem): WireItem {
  const { startedAtMs: _started, completedAtMs: _completed, ...rest } = item;
  return rest as WireItem;
}

/**
 * The items of turn `turnId` as the live stream last completed each one (a declined command, a
 * sub-agent completes more than once), in the order they first completed: what the stored turn
 * must show (thread/read, thread/turns/list, thread/resume).
 */
export function liveItems(client: AppClient, turnId: string): WireItem[] {
  const items: WireItem[] = [];
  for (const message of client.notifications("item/completed")) {
    if (message.params.turnId !== turnId) continue;
    const item = withoutTimes(message.params.item);
    const index = items.findIndex((kept) => kept.id === item.id && kept.type === item.type);
    if (index < 0) items.push(item);
    else items[index] = item;
  }
  return items;
}
