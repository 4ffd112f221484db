/**
 * A thread's history: the items every model request resends, in order. Owned by the Thread;
 * the turn loop appends through the turn's recorder and reads `items` for each request.
 */
import { isToolCall, type ResponseItem } from "../protocol/items.js";

export class History {
  private list: ResponseItem[] = [];

  /** The items, oldest first (a live view: do not keep it across appends). */
  get items(): readonly ResponseItem[] {
    return this.list;
  }

  get length(): number {
    return this.list.length;
  }

  append(item: ResponseItem): void {
    this.list.push(item);
  }

  /** Replace everything (resume, fork, compaction). */
  replace(items: readonly ResponseItem[]): void {
    this.list = [...items];
  }

  /**
   * Drop tool calls that have no output: a turn that died mid-response may leave some, and the
   * API rejects a request that carries a call without its output.
   */
  dropUnansweredCalls(): void {
    const answered = new Set<string>();
    for (const item of this.list) {
      if (item.type === "function_call_output" || item.type === "custom_tool_call_output")
        answered.add(item.call_id);
    }
    this.list = this.list.filter((item) => !isToolCall(item) || answered.has(item.call_id));
  }
}
