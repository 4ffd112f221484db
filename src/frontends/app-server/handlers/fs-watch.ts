/**
 * fs/watch and fs/unwatch: this connection hears `fs/changed {watchId, changedPaths}` when a
 * watched file or the direct entries of a watched directory change (not recursive, as Codex).
 * A file is watched through its directory, so an editor's write-to-temp-and-rename counts too.
 * Events within 200 ms are sent as one notification (sorted, deduplicated). Watches end with
 * fs/unwatch (no notification after its reply) or when the connection closes.
 */
import { type FSWatcher, watch } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errorMessage } from "../../../util/errors.js";
import type { ScopedResource, ScopeKey } from "../connection-scope.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { ErrorCode, encodeNotification, RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

const DEBOUNCE_MS = 200;

interface Watch {
  watcher: FSWatcher;
  timer: NodeJS.Timeout | undefined;
}

class WatchTable implements ScopedResource {
  readonly watches = new Map<string, Watch>();

  stop(watchId: string): void {
    const entry = this.watches.get(watchId);
    if (!entry) return;
    this.watches.delete(watchId);
    clearTimeout(entry.timer);
    entry.watcher.close();
  }

  close(): void {
    for (const watchId of [...this.watches.keys()]) this.stop(watchId);
  }
}

const WATCHES: ScopeKey<WatchTable> = { name: "fs watches", create: () => new WatchTable() };

export async function fsWatch(
  params: ParamsOf<"fs/watch">,
  context: HandlerContext,
): Promise<ResultOf<"fs/watch">> {
  const table = context.session.scope.get(WATCHES);
  if (table.watches.has(params.watchId))
    throw RpcError.invalidRequest(`watchId already exists: ${params.watchId}`);
  let path: string;
  let isDirectory: boolean;
  try {
    path = await realpath(params.path);
    isDirectory = (await stat(path)).isDirectory();
  } catch (error) {
    throw new RpcError(ErrorCode.InternalError, errorMessage(error));
  }
  // Another fs/watch with this id may have won while we looked at the path.
  if (table.watches.has(params.watchId))
    throw RpcError.invalidRequest(`watchId already exists: ${params.watchId}`);
  const directory = isDirectory ? path : dirname(path);
  const only = isDirectory ? null : basename(path);
  const changed = new Set<string>();
  const entry: Watch = { watcher: watchDirectory(directory, onChange), timer: undefined };
  table.watches.set(params.watchId, entry);

  function onChange(name: string | null): void {
    if (only !== null && name !== only) return;
    changed.add(name === null ? directory : join(directory, name));
    entry.timer ??= setTimeout(flush, DEBOUNCE_MS);
  }
  function flush(): void {
    entry.timer = undefined;
    if (table.watches.get(params.watchId) !== entry || changed.size === 0) return;
    const changedPaths = [...changed].sort();
    changed.clear();
    context.session.send(encodeNotification("fs/changed", { watchId: params.watchId, changedPaths }));
  }
  return { path };
}

export async function fsUnwatch(
  params: ParamsOf<"fs/unwatch">,
  context: HandlerContext,
): Promise<ResultOf<"fs/unwatch">> {
  context.session.scope.get(WATCHES).stop(params.watchId);
  return {};
}

function watchDirectory(directory: string, onChange: (name: string | null) => void): FSWatcher {
  let watcher: FSWatcher;
  try {
    watcher = watch(directory, { persistent: false }, (_event, name) => onChange(name ?? null));
  } catch (error) {
    throw new RpcError(ErrorCode.InternalError, errorMessage(error));
  }
  // The directory went away (or the watch failed later): the watch just ends.
  watcher.on("error", () => watcher.close());
  return watcher;
}
