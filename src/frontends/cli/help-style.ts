/**
 * How the command line's help and usage errors read: descriptions wrap at word boundaries within
 * the width (80 columns unless stdout is a wider terminal), a flag too long for the column gets
 * its description on the next line, and a usage error comes after the usage, where it is seen.
 * Set on the program before its subcommands are added: they inherit it.
 */
import { type Command, Help } from "commander";

/** Widest term column; longer terms (`--dangerously-bypass-approvals-and-sandbox`) stand alone. */
const MAX_TERM_WIDTH = 32;
const ITEM_INDENT = 2;
const SPACER = 2;

/** Applies the help layout and the error-after-usage order; `flushError()` writes a held error. */
export function styleHelp(program: Command): { flushError(): void } {
  let heldError: string | undefined;
  program.configureHelp({
    padWidth(cmd, helper) {
      return Math.min(Help.prototype.padWidth.call(this, cmd, helper), MAX_TERM_WIDTH);
    },
    formatItem(term, termWidth, description, helper) {
      if (!description || term.length <= termWidth) {
        return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
      }
      const indent = " ".repeat(ITEM_INDENT + termWidth + SPACER);
      const width = (helper.helpWidth ?? 80) - indent.length;
      const wrapped = helper.boxWrap(description, width).replace(/\n/g, `\n${indent}`);
      return `${" ".repeat(ITEM_INDENT)}${term}\n${indent}${wrapped}`;
    },
  });
  program.configureOutput({
    // Held until the usage (showHelpAfterError) is out: the error is the last thing printed.
    outputError: (message) => {
      heldError = message;
    },
    writeErr: (text) => {
      if (heldError !== undefined && text === "\n") return;
      process.stderr.write(text);
    },
  });
  return {
    flushError() {
      if (heldError === undefined) return;
      process.stderr.write(`\n${heldError}`);
      heldError = undefined;
    },
  };
}
