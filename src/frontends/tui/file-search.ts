/**
 * The `@` menu's file search, done by the app-server over the thread's cwd (so `--remote` finds
 * the server's files). Codex 0.169's search sessions list the directory once and answer each
 * query with a `fuzzyFileSearch/sessionUpdated` notification; a server without them gets one-shot
 * `fuzzyFileSearch` requests (each lists the directory again; one cancellation token, so a query
 * cancels the one before). The session starts again after each turn, which may have added files.
 */
import type { FileSearch } from "./file-mentions.js";
import { isRecord, type UiNotification } from "./wire.js";

type Params = Record<string, unknown>;
type Rpc = (method: string, params: Params) => Promise<Params>;

const SESSION_ID = "tscodex-tui-file-mentions";

/** The paths of a search's `files`, without directories (the menu completes file paths). */
function filePaths(files: unknown): string[] {
  if (!Array.isArray(files)) return [];
  return files.flatMap((file: unknown) =>
    isRecord(file) && file.match_type !== "directory" && typeof file.path === "string" ? [file.path] : [],
  );
}

export class ServerFileSearch {
  /** null until the first search tries a session. */
  private mode: "session" | "oneShot" | null = null;
  /** The server's session and the root it lists; null when none is started (or it is stale). */
  private session: { root: string; started: Promise<unknown> } | null = null;
  private pending: { query: string; resolve: (paths: string[] | null) => void } | null = null;
  private latest = 0;

  constructor(
    private readonly rpc: Rpc,
    /** The thread's cwd on the server (null before a thread is open). */
    private readonly root: () => string | null,
  ) {}

  readonly search: FileSearch = async (query) => {
    const cwd = this.root();
    if (!cwd) return null;
    const asked = ++this.latest;
    if (this.mode !== "oneShot") {
      try {
        return await this.sessionSearch(cwd, query);
      } catch (error) {
        if (this.mode === "session") throw error;
        this.mode = "oneShot";
      }
    }
    const result = await this.rpc("fuzzyFileSearch", {
      query,
      roots: [cwd],
      cancellationToken: SESSION_ID,
    });
    return asked === this.latest ? filePaths(result.files) : null;
  };

  private async sessionSearch(cwd: string, query: string): Promise<string[] | null> {
    if (this.session?.root !== cwd) {
      const started = this.rpc("fuzzyFileSearch/sessionStart", { sessionId: SESSION_ID, roots: [cwd] });
      this.session = { root: cwd, started };
      started.catch(() => {
        if (this.session?.started === started) this.session = null;
      });
    }
    await this.session.started;
    this.mode = "session";
    this.pending?.resolve(null);
    const answered = new Promise<string[] | null>((resolve) => {
      this.pending = { query, resolve };
    });
    await this.rpc("fuzzyFileSearch/sessionUpdate", { sessionId: SESSION_ID, query });
    return answered;
  }

  /** The next search lists the directory again (a turn may have changed its files). */
  refresh(): void {
    this.session = null;
  }

  /** Takes the session's notifications; true when `notification` was one. */
  onNotification(notification: UiNotification): boolean {
    if (!notification.method.startsWith("fuzzyFileSearch/")) return false;
    const pending = this.pending;
    if (notification.method !== "fuzzyFileSearch/sessionUpdated") return true;
    const { params } = notification;
    if (params.sessionId !== SESSION_ID) return true;
    if (pending && pending.query === params.query) {
      this.pending = null;
      pending.resolve(filePaths(params.files));
    }
    return true;
  }
}
