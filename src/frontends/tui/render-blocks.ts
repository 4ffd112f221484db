/**
 * Screen blocks → styled lines of at most `width` columns. Agent text gets a small Markdown
 * pass (headings, **bold**, `code`, fenced code blocks syntax-highlighted (highlight.ts)); commands show
 * status, exit code and a folded tail of their output; file changes are coloured diffs; plans
 * are checklists. Every string of a block comes from outside (the model, commands, files, the
 * server) and is made visible (terminal-text.ts) before it is styled, so none of its control
 * characters reaches the terminal. Pure: the layout caches its result per block version.
 */
import { visibleLine, visibleText } from "../common/terminal-text.js";
import { diffColour, highlighter, type LineHighlighter } from "./highlight.js";
import type { Style } from "./style.js";
import { wrapLine } from "./style.js";
import type { Block } from "./transcript.js";

/** Output lines a command shows (the tail); the rest is folded into a count. */
export const OUTPUT_TAIL_LINES = 5;
const DIFF_MAX_LINES = 400;
const BOLD_OFF = "\x1b[22m";
const DIM_AGAIN = "\x1b[22m\x1b[2m";

export function renderBlock(block: Block, width: number, style: Style): string[] {
  const lines = blockLines(visibleBlock(block), style);
  const rows: string[] = [];
  for (const line of lines) for (const row of wrapLine(line, width)) rows.push(row);
  rows.push("");
  return rows;
}

/** The block with each text shown visibly: multi-line texts keep their newlines, one-line ones not. */
export function visibleBlock(block: Block): Block {
  switch (block.kind) {
    case "user":
    case "agent":
    case "reasoning":
    case "notice":
    case "proposedPlan":
      return { ...block, text: visibleText(block.text) };
    case "command":
      return { ...block, command: visibleText(block.command), output: visibleText(block.output) };
    case "fileChange":
      return {
        ...block,
        changes: block.changes.map((change) => ({
          path: visibleLine(change.path),
          kind: visibleLine(change.kind),
          diff: visibleText(change.diff),
        })),
      };
    case "plan":
      return {
        ...block,
        explanation: block.explanation === null ? null : visibleLine(block.explanation),
        steps: block.steps.map(({ step, status }) => ({ step: visibleLine(step), status })),
      };
    case "tool":
      return { ...block, title: visibleLine(block.title) };
    default:
      return unknownBlock(block);
  }
}

/** A block kind added without a case above fails to compile here rather than print raw text. */
function unknownBlock(block: never): never {
  throw new Error(`no visible form for block ${JSON.stringify(block)}`);
}

function blockLines(block: Block, s: Style): string[] {
  switch (block.kind) {
    case "user":
      return block.text
        .split("\n")
        .map((line, i) => (i === 0 ? `${s.bold(s.cyan("›"))} ${line}` : `  ${line}`));
    case "agent":
      return markdown(block.text, s).map((line, i) => (i === 0 ? `${s.magenta("•")} ${line}` : `  ${line}`));
    case "reasoning":
      // Summaries are Markdown too (`**Looking** at …`); bold's close also ends dim, so dim reopens.
      return markdown(block.text, s).map((line) =>
        s.dim(s.italic(`  ${line.replaceAll(BOLD_OFF, DIM_AGAIN)}`)),
      );
    case "command":
      return commandLines(block, s);
    case "fileChange":
      return fileChangeLines(block, s);
    case "plan": {
      const head = [
        `${s.bold("•")} ${s.bold("Plan")}${block.explanation ? s.dim(` ${block.explanation}`) : ""}`,
      ];
      for (const { step, status } of block.steps) {
        if (status === "completed") head.push(`  ${s.green("✔")} ${s.dim(step)}`);
        else if (status === "inProgress") head.push(`  ${s.yellow("□")} ${s.bold(step)}`);
        else head.push(`  □ ${step}`);
      }
      return head;
    }
    case "proposedPlan":
      return [
        `${s.bold("•")} ${s.bold("Proposed plan")}`,
        ...markdown(block.text, s).map((line) => `  ${line}`),
      ];
    case "tool": {
      const mark =
        block.status === "inProgress" ? s.yellow("•") : block.status === "failed" ? s.red("✗") : s.green("✓");
      return [`${mark} ${s.bold("Called")} ${block.title}`];
    }
    case "notice": {
      const paint = block.tone === "error" ? s.red : block.tone === "warn" ? s.yellow : s.dim;
      return block.text.split("\n").map((line) => paint(line));
    }
  }
}

function commandLines(block: Extract<Block, { kind: "command" }>, s: Style): string[] {
  const status =
    block.status === "inProgress"
      ? s.yellow("running")
      : block.status === "interrupted"
        ? s.yellow("interrupted")
        : block.status === "declined"
          ? s.red("declined")
          : block.exitCode === 0
            ? s.green(`exit ${block.exitCode}`)
            : s.red(`exit ${block.exitCode ?? "?"}`);
  const verb = block.status === "inProgress" ? "Running" : "Ran";
  // A script of several lines: each on its own row, the status after the last.
  const script = unwrapShell(block.command).split("\n");
  const lines = script.map((line, i) => {
    const head = i === 0 ? `${s.bold("•")} ${s.bold(verb)} ` : "    ";
    return `${head}${s.cyan(line)}${i === script.length - 1 ? ` ${s.dim("·")} ${status}` : ""}`;
  });
  const output = block.output.replace(/\n$/, "");
  if (output === "") return lines;
  const all = output.split("\n");
  const hidden = all.length - OUTPUT_TAIL_LINES;
  if (hidden > 0) lines.push(s.dim(`  │ … ${hidden} earlier line${hidden === 1 ? "" : "s"}`));
  for (const line of all.slice(-OUTPUT_TAIL_LINES)) lines.push(s.dim(`  │ ${line}`));
  return lines;
}

/** `/bin/bash -lc 'script'` → `script`: the user wants to see what the model ran. */
export function unwrapShell(command: string): string {
  const match = /^(?:\S*\/)?(?:ba|z)?sh -l?c '((?:[^']|'\\'')*)'$/.exec(command);
  return match?.[1] ? match[1].replace(/'\\''/g, "'") : command;
}

function fileChangeLines(block: Extract<Block, { kind: "fileChange" }>, s: Style): string[] {
  const verb =
    block.status === "inProgress" ? "Editing" : block.status === "declined" ? "Declined" : "Edited";
  const lines: string[] = [];
  for (const change of block.changes) {
    const label = change.kind === "add" ? "added" : change.kind === "delete" ? "deleted" : "updated";
    lines.push(`${s.bold("•")} ${s.bold(verb)} ${change.path} ${s.dim(`(${label})`)}`);
    let diff = change.diff.replace(/\n$/, "").split("\n");
    // An added or deleted file carries its content, not a diff: show it as one.
    if (change.kind === "add") diff = diff.map((line) => `+${line}`);
    else if (change.kind === "delete") diff = diff.map((line) => `-${line}`);
    for (const line of diff.slice(0, DIFF_MAX_LINES)) lines.push(`  ${diffColour(line, s)}`);
    if (diff.length > DIFF_MAX_LINES)
      lines.push(s.dim(`  … ${diff.length - DIFF_MAX_LINES} more diff lines`));
  }
  return lines;
}

/** A small Markdown pass: enough for agent answers to read well in a terminal. */
export function markdown(text: string, s: Style): string[] {
  const out: string[] = [];
  let code: LineHighlighter | null = null;
  for (const line of text.split("\n")) {
    const fence = /^\s*```(.*)$/.exec(line);
    if (fence) {
      code = code ? null : highlighter(fence[1] ?? "", s);
      out.push(s.dim(line.trim()));
      continue;
    }
    if (code) {
      out.push(code(line));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      out.push(s.bold(inline(heading[2] ?? "", s)));
      continue;
    }
    out.push(inline(line.replace(/^(\s*)[-*] /, "$1• "), s));
  }
  return out;
}

function inline(line: string, s: Style): string {
  return line
    .replace(/`([^`]+)`/g, (_, code: string) => s.cyan(code))
    .replace(/\*\*([^*]+)\*\*/g, (_, bold: string) => s.bold(bold));
}
