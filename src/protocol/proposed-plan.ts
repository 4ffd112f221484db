/**
 * The `<proposed_plan>` block a model writes in plan mode: its text becomes a plan item and the
 * rest of the message stays the agent's message. PlanSplitter cuts a streamed message as it
 * arrives (a tag may be split across deltas, so a possible tag start is held back until the
 * next delta tells); splitProposedPlan cuts a whole message the same way.
 */
export const PLAN_OPEN = "<proposed_plan>";
export const PLAN_CLOSE = "</proposed_plan>";

export interface PlanPiece {
  /** "message": text outside the block; "plan": text inside it. */
  part: "message" | "plan";
  text: string;
}

export class PlanSplitter {
  private inPlan = false;
  private closed = false;
  private held = "";
  /** True right after the open tag: the newline that follows the tag is not plan text. */
  private planStart = false;

  /** The pieces `delta` completes, in order (text that may start a tag waits for more). */
  push(delta: string): PlanPiece[] {
    const out: PlanPiece[] = [];
    let text = this.held + delta;
    this.held = "";
    while (text !== "") {
      if (this.closed) {
        out.push({ part: "message", text });
        break;
      }
      const tag = this.inPlan ? PLAN_CLOSE : PLAN_OPEN;
      const at = text.indexOf(tag);
      if (at >= 0) {
        this.emit(out, text.slice(0, at));
        if (this.inPlan) this.closed = true;
        this.inPlan = !this.inPlan;
        this.planStart = this.inPlan;
        text = text.slice(at + tag.length);
        continue;
      }
      const keep = partialTagLength(text, tag);
      this.emit(out, text.slice(0, text.length - keep));
      this.held = text.slice(text.length - keep);
      break;
    }
    return out;
  }

  /** What is still held back when the message ends. */
  finish(): PlanPiece[] {
    const out: PlanPiece[] = [];
    this.emit(out, this.held);
    this.held = "";
    return out;
  }

  private emit(out: PlanPiece[], text: string): void {
    let piece = text;
    if (this.inPlan && this.planStart && piece !== "") {
      if (piece.startsWith("\n")) piece = piece.slice(1);
      this.planStart = false;
    }
    if (piece === "") return;
    const part = this.inPlan ? "plan" : "message";
    const last = out[out.length - 1];
    if (last?.part === part) last.text += piece;
    else out.push({ part, text: piece });
  }
}

/** The length of the longest end of `text` that is a start of `tag`. */
function partialTagLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--)
    if (tag.startsWith(text.slice(text.length - length))) return length;
  return 0;
}

/**
 * A whole message cut into the agent's text and the plan (null without a block). The plan loses
 * the newlines around it inside the tags; the message keeps what surrounds the block, trimmed.
 */
export function splitProposedPlan(text: string): { message: string; plan: string | null } {
  const splitter = new PlanSplitter();
  const pieces = [...splitter.push(text), ...splitter.finish()];
  let message = "";
  let plan: string | null = null;
  for (const piece of pieces) {
    if (piece.part === "message") message += piece.text;
    else plan = (plan ?? "") + piece.text;
  }
  if (plan === null && text.includes(PLAN_OPEN)) plan = "";
  return { message: message.trim(), plan: plan === null ? null : trimPlan(plan) };
}

/** The plan text without the newline before its closing tag. */
export function trimPlan(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}
