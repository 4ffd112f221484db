/**
 * `fs/*` (Codex 0.169 shapes): the host file system by absolute path, file contents as base64,
 * and per-connection watches that report `fs/changed`.
 */
import { isAbsolute } from "node:path";
import { z } from "zod";
import { emptyResult as empty, lazy, methodSpec as v2 } from "./method-spec.js";

/** Codex's AbsolutePathBuf: a relative path is refused, not resolved against some cwd. */
const absolutePath = lazy(() => z.string().refine((path) => isAbsolute(path), "must be an absolute path"));

export const fsRequests = {
  "fs/readFile": v2(
    () => z.object({ path: absolutePath() }),
    () => z.object({ dataBase64: z.string() }),
    "FsReadFileParams",
    "FsReadFileResponse",
  ),
  "fs/writeFile": v2(
    () => z.object({ path: absolutePath(), dataBase64: z.string() }),
    empty,
    "FsWriteFileParams",
    "FsWriteFileResponse",
  ),
  "fs/createDirectory": v2(
    () => z.object({ path: absolutePath(), recursive: z.boolean().nullish() }),
    empty,
    "FsCreateDirectoryParams",
    "FsCreateDirectoryResponse",
  ),
  "fs/getMetadata": v2(
    () => z.object({ path: absolutePath() }),
    () =>
      z.object({
        isDirectory: z.boolean(),
        isFile: z.boolean(),
        isSymlink: z.boolean(),
        createdAtMs: z.number().int(),
        modifiedAtMs: z.number().int(),
      }),
    "FsGetMetadataParams",
    "FsGetMetadataResponse",
  ),
  "fs/readDirectory": v2(
    () => z.object({ path: absolutePath() }),
    () =>
      z.object({
        entries: z.array(
          z
            .object({ fileName: z.string(), isDirectory: z.boolean(), isFile: z.boolean() })
            .meta({ id: "FsReadDirectoryEntry" }),
        ),
      }),
    "FsReadDirectoryParams",
    "FsReadDirectoryResponse",
  ),
  "fs/remove": v2(
    () => z.object({ path: absolutePath(), recursive: z.boolean().nullish(), force: z.boolean().nullish() }),
    empty,
    "FsRemoveParams",
    "FsRemoveResponse",
  ),
  "fs/copy": v2(
    () =>
      z.object({
        sourcePath: absolutePath(),
        destinationPath: absolutePath(),
        recursive: z.boolean().optional(),
      }),
    empty,
    "FsCopyParams",
    "FsCopyResponse",
  ),
  "fs/watch": v2(
    () => z.object({ watchId: z.string(), path: absolutePath() }),
    () => z.object({ path: z.string() }),
    "FsWatchParams",
    "FsWatchResponse",
  ),
  "fs/unwatch": v2(() => z.object({ watchId: z.string() }), empty, "FsUnwatchParams", "FsUnwatchResponse"),
};

export const fsNotifications = {
  "fs/changed": {
    params: z.object({ watchId: z.string(), changedPaths: z.array(z.string()) }),
    name: "FsChangedNotification",
  },
};
