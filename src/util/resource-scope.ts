/**
 * A scope for state that outlives one tool call but must not outlive its owner (a thread):
 * live exec sessions, for example. Tools ask for their resource by key and get the same
 * instance on every call; the owner disposes everything at once when it shuts down.
 */

/** Something a scope can release. `dispose` must not throw or reject (failures stay inside). */
export interface ScopedResource {
  dispose(): Promise<void> | void;
}

/** A typed key: one per kind of resource, created once at module level. */
export interface ResourceKey<T extends ScopedResource> {
  readonly name: string;
  /** Never set; carries T so `use` returns the right type. */
  readonly type?: T;
}

export function resourceKey<T extends ScopedResource>(name: string): ResourceKey<T> {
  return Object.freeze({ name });
}

export class ResourceScope {
  private readonly entries = new Map<ResourceKey<ScopedResource>, ScopedResource>();
  private closed = false;

  /**
   * The scope's instance for `key`, made with `create` on first use. Throws once the scope is
   * disposed, so nothing can start after its owner shut down.
   */
  use<T extends ScopedResource>(key: ResourceKey<T>, create: () => T): T {
    if (this.closed) throw new Error("the thread is shut down");
    const existing = this.entries.get(key);
    // Only `use` stores under a key, always with that key's type.
    if (existing) return existing as T;
    const created = create();
    this.entries.set(key, created);
    return created;
  }

  /** The scope's instance for `key` if one was made (never creates). */
  peek<T extends ScopedResource>(key: ResourceKey<T>): T | undefined {
    return this.entries.get(key) as T | undefined;
  }

  /** Releases every resource, newest first, all of them even when one fails. Idempotent. */
  async dispose(): Promise<void> {
    this.closed = true;
    const resources = [...this.entries.values()].reverse();
    this.entries.clear();
    for (const resource of resources) {
      try {
        await resource.dispose();
      } catch {
        // Disposal is best effort; one broken resource must not keep the others alive.
      }
    }
  }
}
