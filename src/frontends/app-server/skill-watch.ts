/**
 * Watches the skill roots of the server's threads and skills/list calls, so every client hears
 * `skills/changed` when a skill appears, changes or goes on disk (as Codex 0.169 does).
 *
 * Skills are `<root>/<name>/SKILL.md`, so each existing root is watched (non-recursive: a skill
 * directory added or removed) with each of its skill directories (a SKILL.md written), and a
 * root that does not exist through its parent (the root being created). Events within 200 ms
 * make one notification; after each, the watched set is taken again (new skill directories,
 * deleted roots). Bounded: at most MAX_CWDS directories' roots and MAX_WATCHERS watchers
 * (roots first). A watcher that fails is closed and taken again at the next sync; nothing here
 * throws to the server.
 */
import { type FSWatcher, watch } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { skillRoots } from "../../prompt/skills.js";

const DEBOUNCE_MS = 200;
export const MAX_WATCHERS = 128;
const MAX_CWDS = 32;

/** Which entry names of a watched directory matter (null: the OS did not say which). */
type NameFilter = (name: string | null) => boolean;

interface Watched {
  watcher: FSWatcher;
  filters: NameFilter[];
}

export interface SkillWatchOptions {
  home: () => string;
  env: NodeJS.ProcessEnv;
  extraRoots: () => readonly string[];
  /** Skills changed on disk. */
  onChange(): void;
}

export class SkillRootWatcher {
  private readonly cwds = new Set<string>();
  private readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: SkillWatchOptions) {}

  /**
   * Watch the skill roots `cwd` sees (idempotent; the first MAX_CWDS directories only).
   * Resolves once they are watched.
   */
  addCwd(cwd: string): Promise<void> {
    if (this.closed || this.cwds.size >= MAX_CWDS) return this.syncing;
    if (!this.cwds.has(cwd)) {
      this.cwds.add(cwd);
      return this.sync();
    }
    return this.syncing;
  }

  /** The roots changed (extra roots set): watch the new set. Resolves once it is watched. */
  sync(): Promise<void> {
    this.syncing = this.syncing.then(() => this.syncNow()).catch(() => {});
    return this.syncing;
  }

  /** How many directories are watched now (for tests of the bound). */
  get size(): number {
    return this.watched.size;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const { watcher } of this.watched.values()) watcher.close();
    this.watched.clear();
  }

  private async syncNow(): Promise<void> {
    if (this.closed) return;
    const wanted = await this.wantedDirectories();
    if (this.closed) return;
    for (const [dir, entry] of this.watched)
      if (!wanted.has(dir)) {
        entry.watcher.close();
        this.watched.delete(dir);
      }
    for (const [dir, filters] of wanted) {
      const current = this.watched.get(dir);
      if (current) current.filters = filters;
      else this.open(dir, filters);
    }
  }

  /** Directory → the entry names that matter there; roots first, within MAX_WATCHERS. */
  private async wantedDirectories(): Promise<Map<string, NameFilter[]>> {
    const roots = new Set<string>();
    for (const cwd of this.cwds) {
      const input = {
        home: this.options.home(),
        cwd,
        env: this.options.env,
        extraRoots: this.options.extraRoots(),
      };
      for (const root of await skillRoots(input).catch(() => [])) roots.add(root);
    }
    const wanted = new Map<string, NameFilter[]>();
    const add = (dir: string, filter: NameFilter) => {
      const filters = wanted.get(dir);
      if (filters) filters.push(filter);
      else if (wanted.size < MAX_WATCHERS) wanted.set(dir, [filter]);
    };
    const skillDirs: string[] = [];
    for (const root of roots) {
      const entries = await readdir(root, { withFileTypes: true }).catch(() => null);
      if (entries) {
        add(root, () => true);
        for (const entry of entries)
          if (!entry.name.startsWith(".") && (entry.isDirectory() || entry.isSymbolicLink()))
            skillDirs.push(join(root, entry.name));
        continue;
      }
      // Missing: its parent tells when it is created.
      const parent = dirname(root);
      const name = basename(root);
      if (await isDirectory(parent)) add(parent, (changed) => changed === null || changed === name);
    }
    for (const dir of skillDirs) add(dir, (changed) => changed === null || changed === "SKILL.md");
    return wanted;
  }

  private open(dir: string, filters: NameFilter[]): void {
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: false }, (_type, name) => {
        const entry = this.watched.get(dir);
        if (entry?.filters.some((matters) => matters(name === null ? null : String(name)))) this.changed();
      });
    } catch {
      return; // Gone since it was listed: the next sync sees that.
    }
    // A watched directory deleted: drop its watcher; the change it made is reported.
    watcher.on("error", () => {
      watcher.close();
      if (this.watched.get(dir)?.watcher === watcher) this.watched.delete(dir);
      this.changed();
    });
    this.watched.set(dir, { watcher, filters });
  }

  private changed(): void {
    if (this.closed) return;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.sync().then(() => {
        if (!this.closed) this.options.onChange();
      });
    }, DEBOUNCE_MS);
  }
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}
