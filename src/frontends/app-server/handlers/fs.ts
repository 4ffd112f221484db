/**
 * fs/readFile, writeFile, createDirectory, getMetadata, readDirectory, remove, copy: the host
 * file system by absolute path, contents as base64 (Codex 0.169). Reads go anywhere the server
 * can read, regular files only and up to READ_FILE_LIMIT; every write is the client's own (it
 * acts as the user), judged by fs-write-policy.ts on the real path it reaches (real-target.ts:
 * a link as the last component is followed): never into `.git` or the tscodex home, and within
 * the operator's requirements.toml when there is one. Recursive removes and copies never delete or create a
 * protected entry (fs-trees.ts). I/O failures are -32603 with the system's message, misuse and
 * refusals -32600.
 */
import type { FileHandle } from "node:fs/promises";
import { lstat, mkdir, readdir, readlink, realpath, rmdir, stat, symlink, unlink } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { errorMessage } from "../../../util/errors.js";
import { decodeBase64 } from "../base64.js";
import { copyRegular, openForWrite, readRegular, writeAll } from "../fs-safe-io.js";
import { copyTree, counterpart, firstRefusedEntry, removeTree } from "../fs-trees.js";
import { type WriteGuard, writeGuard } from "../fs-write-policy.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { ErrorCode, RpcError } from "../protocol/jsonrpc.js";
import { realEntry, realTarget } from "../real-target.js";
import type { HandlerContext } from "./context.js";

/**
 * A reply carries the whole file as base64 in memory (about 4/3 of it, then the JSON line): larger
 * files are refused whole, never answered in part.
 */
export const READ_FILE_LIMIT = 64 * 1024 * 1024;

export async function fsReadFile(params: ParamsOf<"fs/readFile">): Promise<ResultOf<"fs/readFile">> {
  return {
    dataBase64: (await io(readRegular("fs/readFile", params.path, READ_FILE_LIMIT))).toString("base64"),
  };
}

export async function fsWriteFile(
  params: ParamsOf<"fs/writeFile">,
  context: HandlerContext,
): Promise<ResultOf<"fs/writeFile">> {
  const bytes = decodeBase64(params.dataBase64, "dataBase64");
  const guard = await guardFor("fs/writeFile", context);
  const target = await allowedTarget(params.path, guard);
  await io(writeAll(await io(openTarget("fs/writeFile", params.path, target, guard)), bytes));
  return {};
}

export async function fsCreateDirectory(
  params: ParamsOf<"fs/createDirectory">,
  context: HandlerContext,
): Promise<ResultOf<"fs/createDirectory">> {
  const guard = await guardFor("fs/createDirectory", context);
  const target = await allowedTarget(params.path, guard);
  await io(mkdir(target, { recursive: params.recursive ?? true }));
  return {};
}

export async function fsGetMetadata(params: ParamsOf<"fs/getMetadata">): Promise<ResultOf<"fs/getMetadata">> {
  const link = await io(lstat(params.path));
  const info = link.isSymbolicLink() ? await io(stat(params.path)) : link;
  return {
    isDirectory: info.isDirectory(),
    isFile: info.isFile(),
    isSymlink: link.isSymbolicLink(),
    createdAtMs: Math.floor(info.birthtimeMs),
    modifiedAtMs: Math.floor(info.mtimeMs),
  };
}

export async function fsReadDirectory(
  params: ParamsOf<"fs/readDirectory">,
): Promise<ResultOf<"fs/readDirectory">> {
  const entries = await io(readdir(params.path, { withFileTypes: true }));
  return {
    entries: await Promise.all(
      entries.map(async (entry) => {
        // A symlink counts as what it points to (a dangling one as neither).
        const target = entry.isSymbolicLink()
          ? await stat(join(params.path, entry.name)).catch(() => null)
          : entry;
        return {
          fileName: entry.name,
          isDirectory: target?.isDirectory() ?? false,
          isFile: target?.isFile() ?? false,
        };
      }),
    ),
  };
}

export async function fsRemove(
  params: ParamsOf<"fs/remove">,
  context: HandlerContext,
): Promise<ResultOf<"fs/remove">> {
  const guard = await guardFor("fs/remove", context);
  // Removing a link removes the link: only the directories on the way are resolved.
  const entry = await io(realEntry(params.path));
  if (!guard.allows(entry)) throw guard.refusal(params.path, entry);
  const recursive = params.recursive ?? true;
  const force = params.force ?? true;
  const info = await lstat(entry).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" && force) return null;
    throw ioError(error);
  });
  if (!info) return {};
  if (!info.isDirectory()) await io(unlink(entry));
  else if (!recursive) await io(rmdir(entry));
  else {
    const refused = await io(firstRefusedEntry(entry, guard, (path) => path));
    if (refused !== null) throw guard.treeRefusal(`${params.path} holds`, refused);
    await io(removeTree(entry, guard));
  }
  return {};
}

export async function fsCopy(
  params: ParamsOf<"fs/copy">,
  context: HandlerContext,
): Promise<ResultOf<"fs/copy">> {
  const { sourcePath, destinationPath } = params;
  const guard = await guardFor("fs/copy", context);
  const info = await io(lstat(sourcePath));
  if (info.isSymbolicLink()) {
    // A link is copied as a link, made at the destination itself (symlink never follows it).
    const entry = await io(realEntry(destinationPath));
    if (!guard.allows(entry)) throw guard.refusal(destinationPath, entry);
    await io(symlink(await io(readlink(sourcePath)), entry));
    return {};
  }
  const target = await allowedTarget(destinationPath, guard);
  if (info.isDirectory()) {
    if (params.recursive !== true)
      throw RpcError.invalidRequest("fs/copy requires recursive: true when sourcePath is a directory");
    if (await isSameOrInside(destinationPath, sourcePath))
      throw RpcError.invalidRequest("fs/copy cannot copy a directory to itself or one of its descendants");
    const toTarget = counterpart(sourcePath, target);
    const refused = await io(firstRefusedEntry(sourcePath, guard, toTarget));
    if (refused !== null) throw guard.treeRefusal(`copying ${sourcePath} would create`, toTarget(refused));
    await io(copyTree("fs/copy", sourcePath, target, guard));
    return {};
  }
  if (!info.isFile())
    throw RpcError.invalidRequest("fs/copy only supports regular files, directories, and symlinks");
  await io(copyRegular("fs/copy", sourcePath, () => openTarget("fs/copy", destinationPath, target, guard)));
  return {};
}

function guardFor(method: string, context: HandlerContext): Promise<WriteGuard> {
  return writeGuard(method, context.runtime.config, context.runtime.env);
}

/** The real path a write to `path` reaches (links followed), or -32600 when the guard refuses it. */
async function allowedTarget(path: string, guard: WriteGuard): Promise<string> {
  const target = await io(realTarget(path));
  if (!guard.allows(target)) throw guard.refusal(path, target);
  return target;
}

/** `target` (the real path of `requested`) opened for writing, judged again once open. */
function openTarget(
  method: string,
  requested: string,
  target: string,
  guard: WriteGuard,
): Promise<FileHandle> {
  return openForWrite(method, target, guard.allows, (real) => guard.refusal(requested, real));
}

/** Whether `path` (which may not exist yet) is `dir` or inside it, comparing real paths. */
async function isSameOrInside(path: string, dir: string): Promise<boolean> {
  const realDir = await io(realpath(dir));
  let existing = path;
  let rest = "";
  for (;;) {
    try {
      const real = await realpath(existing);
      const inside = relative(realDir, `${real}${rest}`);
      return inside === "" || !(inside.startsWith("..") || inside.startsWith(sep));
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return false;
      rest = `${sep}${existing.slice(parent.length).replace(/^\//, "")}${rest}`;
      existing = parent;
    }
  }
}

/** `operation`'s value, or its I/O failure as -32603 with the system's message. */
async function io<T>(operation: Promise<T>): Promise<T> {
  try {
    return await operation;
  } catch (error) {
    throw ioError(error);
  }
}

function ioError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  return new RpcError(ErrorCode.InternalError, errorMessage(error));
}
