import { errorMessage } from "../../util/errors.js";
import { visibleText } from "../common/terminal-text.js";

/** A command that threw: `tscodex: MESSAGE` on stderr (its controls shown), exit code 1. */
export function reportFailure(error: unknown): number {
  process.stderr.write(`tscodex: ${visibleText(errorMessage(error))}\n`);
  return 1;
}
