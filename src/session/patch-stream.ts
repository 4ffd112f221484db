/**
 * apply_patch calls as the model streams them: the changes a call's input describes so far, for
 * front-ends that show a patch while it is written (the app-server's
 * `item/fileChange/patchUpdated`). Only complete lines count, closed with `*** End Patch` and
 * read by the real parser; a prefix it cannot read yet (a hunk header without lines) waits for
 * more input. Nothing here applies anything.
 */
import type { FileChange } from "../protocol/events.js";
import type { ResponseItem } from "../protocol/items.js";

type ChangesModule = typeof import("./patch-changes.js");

/**
 * The patch parser, loaded when the first apply_patch call starts streaming: a turn without one
 * (a one-turn exec's) never loads it. Until it is there, deltas only accumulate.
 */
let loaded: ChangesModule | null = null;
let loading: Promise<void> | null = null;

function loadChanges(): Promise<void> {
  loading ??= import("./patch-changes.js").then(
    (module) => {
      loaded = module;
    },
    () => {
      loading = null; // tried again by the next call
    },
  );
  return loading;
}

interface Streaming {
  callId: string;
  input: string;
  /** The changes last reported, serialized (reported again only when they differ). */
  last: string;
}

export class PatchStreams {
  private readonly calls = new Map<string, Streaming>();

  constructor(private readonly cwd: string) {}

  /** Resolves once the parser is loaded (it loads when a call starts streaming). */
  ready(): Promise<void> {
    return loadChanges();
  }

  /** Whether a delta of item `itemId` would be read before the parser is there (await `ready()`). */
  waiting(itemId: string): boolean {
    return loaded === null && this.calls.has(itemId);
  }

  /** A new output item: an apply_patch custom tool call starts streaming. */
  added(item: ResponseItem): void {
    if (item.type === "custom_tool_call" && item.name === "apply_patch" && item.id) {
      void loadChanges();
      this.calls.set(item.id, { callId: item.call_id, input: item.input, last: "" });
    }
  }

  /** A piece of item `itemId`'s input: its call and changes when they changed, else null. */
  delta(itemId: string, delta: string): { callId: string; changes: Record<string, FileChange> } | null {
    const call = this.calls.get(itemId);
    if (!call) return null;
    call.input += delta;
    if (!delta.includes("\n") || !loaded) return null;
    const changes = loaded.changesSoFar(call.input, this.cwd);
    if (!changes) return null;
    const serialized = JSON.stringify(changes);
    if (serialized === call.last) return null;
    call.last = serialized;
    return { callId: call.callId, changes };
  }

  /** A failed attempt's streams are gone (the retry streams them again). */
  clear(): void {
    this.calls.clear();
  }
}
