import { errorMessage } from "../../util/errors.js";

/** A command that threw: `tscodex: MESSAGE` on stderr, exit code 1. */
export function reportFailure(error: unknown): number {
  process.stderr.write(`tscodex: ${errorMessage(error)}\n`);
  return 1;
}
