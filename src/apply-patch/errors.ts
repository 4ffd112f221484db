/**
 * Errors of the patch engine. Every `message` is the exact text the model (or the CLI user)
 * sees, in Codex's wording, so callers never re-format them.
 */

/** Prefix Codex puts on every parse and verification failure. */
export const VERIFICATION_PREFIX = "apply_patch verification failed: ";

/** Base class: any failure of parsing, verifying or writing a patch. */
export class PatchError extends Error {
  override name = "PatchError";
}

/** The patch text is malformed. `detail` is the message without the verification prefix. */
export class PatchParseError extends PatchError {
  override name = "PatchParseError";
  constructor(
    readonly detail: string,
    /** 1-based line of the offending hunk line, when the error is about a hunk. */
    readonly lineNumber: number | null = null,
  ) {
    super(VERIFICATION_PREFIX + detail);
  }

  /** `invalid patch: {reason}` */
  static invalidPatch(reason: string): PatchParseError {
    return new PatchParseError(`invalid patch: ${reason}`);
  }

  /** `invalid hunk at line {n}, {reason}` */
  static invalidHunk(lineNumber: number, reason: string): PatchParseError {
    return new PatchParseError(`invalid hunk at line ${lineNumber}, ${reason}`, lineNumber);
  }
}

/** The patch is well formed but does not fit the files on disk (nothing was written). */
export class PatchVerifyError extends PatchError {
  override name = "PatchVerifyError";
  constructor(
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(VERIFICATION_PREFIX + detail, options);
  }
}

/** The patch was refused before verification (e.g. it has no hunks). No prefix, as in Codex. */
export class PatchRejectedError extends PatchError {
  override name = "PatchRejectedError";
  constructor(reason: string) {
    super(`patch rejected: ${reason}`);
  }
}

/**
 * Writing failed; the tree was rolled back to its state before the patch (except files the
 * client's editor already took: PartlyWrittenError).
 */
export class PatchWriteError extends PatchError {
  override name = "PatchWriteError";
}

/** Linux strerror texts for the errno values file operations realistically produce. */
const STRERROR: Record<string, [number, string]> = {
  EPERM: [1, "Operation not permitted"],
  ENOENT: [2, "No such file or directory"],
  EIO: [5, "Input/output error"],
  EBADF: [9, "Bad file descriptor"],
  EAGAIN: [11, "Resource temporarily unavailable"],
  ENOMEM: [12, "Cannot allocate memory"],
  EACCES: [13, "Permission denied"],
  EBUSY: [16, "Device or resource busy"],
  EEXIST: [17, "File exists"],
  EXDEV: [18, "Invalid cross-device link"],
  ENOTDIR: [20, "Not a directory"],
  EISDIR: [21, "Is a directory"],
  EINVAL: [22, "Invalid argument"],
  EMFILE: [24, "Too many open files"],
  ETXTBSY: [26, "Text file busy"],
  EFBIG: [27, "File too large"],
  ENOSPC: [28, "No space left on device"],
  EROFS: [30, "Read-only file system"],
  EMLINK: [31, "Too many links"],
  ENAMETOOLONG: [36, "File name too long"],
  ENOTEMPTY: [39, "Directory not empty"],
  ELOOP: [40, "Too many levels of symbolic links"],
  EDQUOT: [122, "Disk quota exceeded"],
};

/** Render an fs error the way Rust's `io::Error` displays it: `No such file or directory (os error 2)`. */
export function describeIoError(error: unknown): string {
  if (error instanceof InvalidUtf8Error) return error.message;
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    const known = code === undefined ? undefined : STRERROR[code];
    if (known) return `${known[1]} (os error ${known[0]})`;
    return error.message;
  }
  return String(error);
}

/** A file that must be edited as text is not valid UTF-8 (Rust's `read_to_string` wording). */
export class InvalidUtf8Error extends Error {
  override name = "InvalidUtf8Error";
  constructor() {
    super("stream did not contain valid UTF-8");
  }
}
