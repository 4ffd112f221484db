/**
 * What one connection owns outside threads (its command/exec processes, its fs watches, its
 * fuzzy file search sessions): each method group keeps its table here, created on first use, and
 * every table is closed when the connection closes, so nothing a client started outlives it.
 */

/** A per-connection table: created on first use, closed with the connection. */
export interface ScopedResource {
  /** The connection closed: stop everything (kill processes, close watchers). Must not throw. */
  close(): void;
}

/** Names a table and says how to make it; use one constant key per table. */
export interface ScopeKey<T extends ScopedResource> {
  readonly name: string;
  create(): T;
}

export class ConnectionScope {
  private readonly tables = new Map<ScopeKey<ScopedResource>, ScopedResource>();
  private closed = false;

  /** The connection's table for `key`, created on first use. */
  get<T extends ScopedResource>(key: ScopeKey<T>): T {
    let table = this.tables.get(key);
    if (!table) {
      table = key.create();
      if (this.closed) table.close();
      this.tables.set(key, table);
    }
    // The map is keyed by the ScopeKey<T> that created the value.
    return table as T;
  }

  /** Close every table (idempotent); tables made later start closed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const table of this.tables.values()) table.close();
  }
}
