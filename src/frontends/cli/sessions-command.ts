/**
 * `tscodex sessions list|show|delete|fork`: stored threads, read from the configured store
 * (JSONL rollouts under $TSCODEX_HOME, or PostgreSQL). Human output is a table on stdout;
 * `--json` prints machine-readable JSON.
 */
import { messageText, type ResponseItem } from "../../protocol/items.js";
import {
  migrateThreads,
  openJsonlStore,
  openThreadStore,
  RolloutError,
  type StoredThread,
  StoreError,
  summaryOf,
  type ThreadStore,
  type ThreadSummary,
} from "../../store/index.js";
import { redactUrl } from "../../util/redact-url.js";
import { visibleLine, visibleText } from "../common/terminal-text.js";

export type SessionsAction = "list" | "show" | "delete" | "fork";

export interface SessionsCliOptions {
  json?: boolean;
  limit?: number;
  turns?: number;
}

/** Runs one sessions sub-command; returns the exit code. */
export async function runSessionsCommand(
  action: SessionsAction,
  id: string | undefined,
  options: SessionsCliOptions,
  store: ThreadStore,
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  const print = (text: string) => out.write(`${text}\n`);
  try {
    switch (action) {
      case "list": {
        const limit = options.limit && options.limit > 0 ? options.limit : undefined;
        const page = await store.list(limit === undefined ? {} : { limit });
        const threads = page.threads.map(summaryOf);
        if (options.json) print(JSON.stringify(threads, null, 2));
        else print(threads.length === 0 ? "no stored threads" : listTable(threads, Date.now()));
        return 0;
      }
      case "show": {
        const full = await store.resolveId(id ?? "");
        const stored = full ? await store.read(full) : null;
        if (!stored) return missing(id);
        if (options.json) print(JSON.stringify(showJson(stored), null, 2));
        else print(showText(stored));
        return 0;
      }
      case "delete": {
        const full = await store.resolveId(id ?? "");
        if (!full || !(await store.delete(full))) return missing(id);
        print(`deleted ${id}`);
        return 0;
      }
      case "fork": {
        if (options.turns !== undefined && !(Number.isInteger(options.turns) && options.turns >= 0))
          return failure("--turns must be a whole number ≥ 0");
        const full = await store.resolveId(id ?? "");
        if (!full) return missing(id);
        const forkedId = await store.fork(full, options.turns !== undefined ? { turns: options.turns } : {});
        const path = (await store.read(forkedId))?.path ?? null;
        print(options.json ? JSON.stringify({ id: forkedId, path }) : forkedId);
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof RolloutError || error instanceof StoreError) return failure(error.message);
    throw error;
  }
}

/**
 * `sessions migrate --to URL`: every local rollout (archived ones too) into the store at `url`.
 * Progress goes to stderr; the exit code is 1 when a thread could not be copied.
 */
export async function runMigrateCommand(home: string, url: string | null): Promise<number> {
  if (!url) {
    return failure(
      "sessions migrate: no target store: pass --to postgres://..., or set [store] url (or $TSCODEX_STORE_URL)",
    );
  }
  let target: ThreadStore;
  try {
    target = await openThreadStore({ home, store: { url } });
  } catch (error) {
    if (error instanceof StoreError) return failure(error.message);
    throw error;
  }
  try {
    const report = await migrateThreads(await openJsonlStore(home), target, (progress) => {
      process.stderr.write(`[${progress.done}/${progress.total}] ${progress.id} ${progress.outcome}\n`);
    });
    for (const { id, error } of report.failed)
      process.stderr.write(`tscodex: ${visibleLine(`${id}: ${error}`)}\n`);
    process.stdout.write(
      `migrated to ${redactUrl(url)}: ${report.copied} copied, ${report.resumed} completed, ` +
        `${report.unchanged} already there, ${report.failed.length} failed (${report.lines} lines)\n`,
    );
    return report.failed.length > 0 ? 1 : 0;
  } finally {
    await target.close();
  }
}

function missing(id: string | undefined): number {
  return failure(`no stored thread with id ${id ?? ""}`);
}

function failure(message: string): number {
  process.stderr.write(`tscodex: ${visibleText(message)}\n`);
  return 1;
}

/** "42s", "5m", "3h", "2d": how long ago `iso` was. */
export function age(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Newest first; a sub-agent right under its parent (when listed), marked with its parent. Cells
 * (a prompt, a cwd) show their control characters (terminal-text.ts), measured as shown.
 */
function listTable(threads: ThreadSummary[], now: number): string {
  const rows = withChildrenUnderParents(threads).map(({ thread, depth }) =>
    [
      depth > 0 ? `${"  ".repeat(depth - 1)}↳ ${thread.id}` : thread.id,
      age(thread.updated, now),
      String(thread.turns),
      String(thread.usage.total_tokens),
      thread.cwd,
      oneLine(thread.firstPrompt ?? "", 60),
    ].map(visibleLine),
  );
  const header = ["ID", "AGE", "TURNS", "TOKENS", "CWD", "FIRST PROMPT"];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const format = (row: string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [format(header), ...rows.map(format)].join("\n");
}

function withChildrenUnderParents(threads: ThreadSummary[]): { thread: ThreadSummary; depth: number }[] {
  const listed = new Set(threads.map((thread) => thread.id));
  const children = new Map<string, ThreadSummary[]>();
  for (const thread of threads) {
    if (!thread.parentId || !listed.has(thread.parentId)) continue;
    children.set(thread.parentId, [...(children.get(thread.parentId) ?? []), thread]);
  }
  const out: { thread: ThreadSummary; depth: number }[] = [];
  const visit = (thread: ThreadSummary, depth: number) => {
    out.push({ thread, depth });
    for (const child of children.get(thread.id) ?? []) visit(child, depth + 1);
  };
  for (const thread of threads)
    if (!thread.parentId || !listed.has(thread.parentId)) visit(thread, thread.parentId ? 1 : 0);
  return out;
}

function showJson(stored: StoredThread) {
  return {
    meta: stored.meta,
    updated: stored.updated,
    turns: stored.turns,
    usage: stored.usage,
    first_prompt: stored.firstPrompt,
    compactions: stored.compactions,
    skipped_lines: stored.skippedLines,
    history: stored.history,
  };
}

/** The thread for a reader: what the model and commands wrote shows its control characters. */
function showText(stored: StoredThread): string {
  const { meta } = stored;
  const lines = [
    `thread   ${meta.id}${meta.forked_from ? ` (forked from ${meta.forked_from})` : ""}`,
    `created  ${meta.created} (updated ${stored.updated})`,
    `cwd      ${meta.cwd}`,
    `model    ${meta.model} (provider ${meta.provider}, source ${meta.source})`,
    `policy   approval ${meta.approval_policy}, sandbox ${meta.sandbox_mode}`,
    `turns    ${stored.turns}, tokens ${stored.usage.total_tokens} (input ${stored.usage.input_tokens}, output ${stored.usage.output_tokens})`,
  ];
  if (stored.compactions > 0) lines.push(`compacted ${stored.compactions} time(s)`);
  if (stored.skippedLines > 0) lines.push(`skipped  ${stored.skippedLines} unreadable line(s)`);
  lines.push("");
  for (const item of stored.history) {
    const line = describeItem(item);
    if (line) lines.push(line);
  }
  return visibleText(lines.join("\n"));
}

function describeItem(item: ResponseItem): string | null {
  switch (item.type) {
    case "message":
      return `${item.role}: ${oneLine(messageText(item), 200)}`;
    case "function_call":
      return `tool ${item.name}(${oneLine(item.arguments, 160)})`;
    case "custom_tool_call":
      return `tool ${item.name}: ${oneLine(item.input, 160)}`;
    case "local_shell_call":
      return `tool local_shell: ${oneLine(item.action.command.join(" "), 160)}`;
    case "function_call_output":
    case "custom_tool_call_output": {
      const text = typeof item.output === "string" ? item.output : "[content items]";
      return `  → ${oneLine(text, 160)}`;
    }
    case "reasoning":
      return null;
    case "web_search_call":
      return `web search: ${item.action?.query ?? ""}`;
  }
}
