/**
 * fuzzyFileSearch (one search: the best 50 files and directories under `roots` for `query`) and
 * its sessions (Codex 0.169): sessionStart lists the roots once, each sessionUpdate answers at
 * once and then sends `fuzzyFileSearch/sessionUpdated {sessionId, query, files}` followed by
 * `fuzzyFileSearch/sessionCompleted {sessionId}` for the newest query only; sessionStop (or the
 * connection closing) ends the session. A one-shot search with a `cancellationToken` cancels the
 * previous one with the same token, which answers with no files.
 */

import type { ScopedResource, ScopeKey } from "../connection-scope.js";
import { type FileSearchResult, type IndexedEntry, indexRoots, searchIndex } from "../file-index.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { encodeNotification, RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

interface SearchSession {
  readonly stop: AbortController;
  readonly entries: Promise<IndexedEntry[]>;
  latestQuery: string | null;
}

class SearchTable implements ScopedResource {
  readonly sessions = new Map<string, SearchSession>();
  /** One-shot searches by cancellation token. */
  readonly pending = new Map<string, AbortController>();

  stop(sessionId: string): void {
    this.sessions.get(sessionId)?.stop.abort();
    this.sessions.delete(sessionId);
  }

  close(): void {
    for (const sessionId of [...this.sessions.keys()]) this.stop(sessionId);
    for (const search of this.pending.values()) search.abort();
    this.pending.clear();
  }
}

const SEARCHES: ScopeKey<SearchTable> = { name: "fuzzy file searches", create: () => new SearchTable() };

export async function fuzzyFileSearch(
  params: ParamsOf<"fuzzyFileSearch">,
  context: HandlerContext,
): Promise<ResultOf<"fuzzyFileSearch">> {
  if (params.query === "") return { files: [] };
  const table = context.session.scope.get(SEARCHES);
  const search = new AbortController();
  const token = params.cancellationToken ?? null;
  if (token !== null) {
    table.pending.get(token)?.abort();
    table.pending.set(token, search);
  }
  try {
    const entries = await indexRoots(params.roots, search.signal);
    return { files: search.signal.aborted ? [] : searchIndex(entries, params.query) };
  } finally {
    if (token !== null && table.pending.get(token) === search) table.pending.delete(token);
  }
}

export async function fuzzyFileSearchSessionStart(
  params: ParamsOf<"fuzzyFileSearch/sessionStart">,
  context: HandlerContext,
): Promise<ResultOf<"fuzzyFileSearch/sessionStart">> {
  if (params.sessionId === "") throw RpcError.invalidRequest("sessionId must not be empty");
  const table = context.session.scope.get(SEARCHES);
  // Starting an id again replaces the session, as Codex does.
  table.stop(params.sessionId);
  const stop = new AbortController();
  const entries = indexRoots(params.roots, stop.signal);
  table.sessions.set(params.sessionId, { stop, entries, latestQuery: null });
  return {};
}

export async function fuzzyFileSearchSessionUpdate(
  params: ParamsOf<"fuzzyFileSearch/sessionUpdate">,
  context: HandlerContext,
): Promise<ResultOf<"fuzzyFileSearch/sessionUpdate">> {
  const { sessionId, query } = params;
  const session = context.session.scope.get(SEARCHES).sessions.get(sessionId);
  if (!session) throw RpcError.invalidRequest(`fuzzy file search session not found: ${sessionId}`);
  session.latestQuery = query;
  // The reply first; the results follow as notifications once the listing is ready.
  context.after(() => {
    void session.entries.then((entries) => {
      if (session.stop.signal.aborted || session.latestQuery !== query) return;
      const files: FileSearchResult[] = searchIndex(entries, query);
      context.session.send(encodeNotification("fuzzyFileSearch/sessionUpdated", { sessionId, query, files }));
      context.session.send(encodeNotification("fuzzyFileSearch/sessionCompleted", { sessionId }));
    });
  });
  return {};
}

export async function fuzzyFileSearchSessionStop(
  params: ParamsOf<"fuzzyFileSearch/sessionStop">,
  context: HandlerContext,
): Promise<ResultOf<"fuzzyFileSearch/sessionStop">> {
  context.session.scope.get(SEARCHES).stop(params.sessionId);
  return {};
}
