/**
 * The file operations a patch commit makes, done without following symlinks on the way: the
 * native helper (`tscodex-sandbox --file-ops`) opens every directory with
 * openat2(RESOLVE_NO_SYMLINKS) and changes only the last component relative to it. A workspace
 * directory swapped for a symlink after the patch was checked makes the operation fail (ELOOP)
 * instead of writing where the link points. Without the helper (not built, not Linux) the same
 * operations run through node:fs, which follows links.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { chmod, mkdir, rename, rmdir, symlink, unlink, writeFile } from "node:fs/promises";
import { constants } from "node:os";
import { findNativeHelper } from "../util/native-helper.js";

/** The commit's file operations (absolute paths). */
export interface FileOps {
  /** Create missing directories; the first one created, if any. */
  mkdirp(dir: string): Promise<string | undefined>;
  /** A new file (fails if it exists); `mode` null keeps the umask's. */
  create(path: string, data: string | Uint8Array, mode: number | null): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** Remove an empty directory. */
  rmdir(path: string): Promise<void>;
  symlink(target: string, path: string): Promise<void>;
  close(): void;
}

/** The helper's operations when it is built, else node:fs's. */
export async function openFileOps(): Promise<FileOps> {
  const helper = process.platform === "linux" ? await findNativeHelper() : null;
  return helper ? new HelperFileOps(helper) : nodeFileOps;
}

/** node:fs, following symlinks (the fallback). */
export const nodeFileOps: FileOps = {
  mkdirp: (dir) => mkdir(dir, { recursive: true }),
  async create(path, data, mode) {
    await writeFile(path, data, { flag: "wx" });
    if (mode !== null) await chmod(path, mode);
  },
  rename,
  unlink,
  rmdir: (path) => rmdir(path),
  symlink: (target, path) => symlink(target, path),
  close() {},
};

const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, value]) => [value, name]));

/** One helper process per commit; requests go one at a time, each answered by one line. */
class HelperFileOps implements FileOps {
  private readonly child: ChildProcessWithoutNullStreams;
  private chain: Promise<unknown> = Promise.resolve();
  private buffered = "";
  private readonly waiting: ((line: string | null) => void)[] = [];

  constructor(helper: string) {
    this.child = spawn(helper, ["--file-ops"], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      this.buffered += chunk;
      let newline = this.buffered.indexOf("\n");
      while (newline >= 0) {
        const line = this.buffered.slice(0, newline);
        this.buffered = this.buffered.slice(newline + 1);
        this.waiting.shift()?.(line);
        newline = this.buffered.indexOf("\n");
      }
    });
    const ended = (): void => {
      for (const waiter of this.waiting.splice(0)) waiter(null);
    };
    this.child.once("close", ended);
    this.child.once("error", ended);
    this.child.stdin.on("error", () => {});
    this.child.stderr.resume();
  }

  async mkdirp(dir: string): Promise<string | undefined> {
    const value = await this.request([field("mkdirp"), field(dir)], dir);
    return value === "" ? undefined : value;
  }

  async create(path: string, data: string | Uint8Array, mode: number | null): Promise<void> {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data);
    const modeText = mode === null ? "-" : (mode & 0o7777).toString(8);
    await this.request(
      [field("create"), field(path), field(modeText), field(String(bytes.length)), bytes],
      path,
    );
  }

  async rename(from: string, to: string): Promise<void> {
    await this.request([field("rename"), field(from), field(to)], to);
  }

  async unlink(path: string): Promise<void> {
    await this.request([field("unlink"), field(path)], path);
  }

  async rmdir(path: string): Promise<void> {
    await this.request([field("rmdir"), field(path)], path);
  }

  async symlink(target: string, path: string): Promise<void> {
    await this.request([field("symlink"), field(target), field(path)], path);
  }

  close(): void {
    this.child.stdin.end();
  }

  /** Send one request after the previous one was answered; the answer's value, or throws. */
  private request(parts: Buffer[], path: string): Promise<string> {
    const run = async (): Promise<string> => {
      const answer = new Promise<string | null>((resolve) => this.waiting.push(resolve));
      this.child.stdin.write(Buffer.concat(parts));
      const line = await answer;
      if (line === null) throw ioError("EIO", path, "the file helper exited");
      if (line === "ok" || line.startsWith("ok ")) return line.slice(3);
      const errno = Number(line.slice(4));
      throw ioError(ERRNO_NAMES.get(errno) ?? "EIO", path);
    };
    const result = this.chain.then(run, run);
    this.chain = result.catch(() => undefined);
    return result;
  }
}

function field(text: string): Buffer {
  return Buffer.from(`${text}\0`, "utf8");
}

function ioError(code: string, path: string, detail?: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: ${detail ?? "file operation failed"}, '${path}'`);
  error.code = code;
  error.path = path;
  return error;
}
