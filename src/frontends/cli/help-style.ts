/**
 * How the command line's help reads: descriptions wrap at word boundaries within the width (80
 * columns unless stdout is a wider terminal), and a flag too long for the column gets its
 * description on the next line. Set on the program before its subcommands are added: they
 * inherit it.
 */
import { type Command, Help } from "commander";

/** Widest term column; longer terms (`--dangerously-bypass-approvals-and-sandbox`) stand alone. */
const MAX_TERM_WIDTH = 32;
const ITEM_INDENT = 2;
const SPACER = 2;

/** Applies the help layout (usage errors are usage-errors.ts's). */
export function styleHelp(program: Command): void {
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
}
