/**
 * An approval the server asks for (a command to run, a patch to apply), as a view above the
 * composer: y approves once, a for the session, n or Esc declines, Ctrl+C declines and stops the
 * turn (the protocol's "cancel"). The question shows exactly what will run: the whole command,
 * every control character in it visible, a script of several lines on as many rows, never cut.
 */
import { visibleLine, visibleText } from "../common/terminal-text.js";
import type { Key } from "./keys.js";
import { unwrapShell } from "./render-blocks.js";
import { type Style, wrapLine } from "./style.js";
import type { KeyOutcome, View } from "./views.js";
import type { ApprovalRequest } from "./wire.js";

export type ApprovalDecision = "accept" | "acceptForSession" | "decline" | "cancel";

const DECISIONS = new Map<string, ApprovalDecision>([
  ["y", "accept"],
  ["a", "acceptForSession"],
  ["n", "decline"],
  ["escape", "decline"],
  ["ctrl-c", "cancel"],
]);

const VERDICTS: Record<ApprovalDecision, string> = {
  accept: "approved",
  acceptForSession: "approved for the session",
  decline: "denied",
  cancel: "denied, turn stopped",
};

export class ApprovalView implements View {
  constructor(
    private readonly request: ApprovalRequest,
    /** Sends the decision back to the server. */
    private readonly answer: (decision: ApprovalDecision) => void,
    /** Leaves the verdict in the transcript. */
    private readonly notice: (text: string, tone: "info" | "warn") => void,
  ) {}

  onKey(key: Key): KeyOutcome {
    const choice = key.name === "text" ? key.text.toLowerCase() : key.name;
    const decision = DECISIONS.get(choice);
    // Every other key is swallowed: nothing reaches the composer while the turn waits.
    if (!decision) return "consumed";
    const request = this.request;
    const what =
      request.method === "item/fileChange/requestApproval"
        ? "patch"
        : unwrapShell(request.params.command ?? "command");
    const approved = decision === "accept" || decision === "acceptForSession";
    this.notice(`${approved ? "✔" : "✗"} ${VERDICTS[decision]}: ${what}`, approved ? "info" : "warn");
    this.answer(decision);
    return "closed";
  }

  rows(s: Style, width: number): string[] {
    const { method, params } = this.request;
    const lines = [s.bold(s.yellow("Approval needed"))];
    if (method === "item/fileChange/requestApproval")
      lines.push(
        `Apply the proposed patch${params.grantRoot ? ` (write access to ${visibleLine(params.grantRoot)})` : ""}?`,
      );
    else {
      const network = params.networkApprovalContext;
      if (network)
        lines.push(
          `Let this command reach ${s.cyan(visibleLine(network.host))} (${visibleLine(network.protocol)}), which the network allowlist blocked?`,
        );
      const script = visibleText(unwrapShell(params.command ?? "?")).split("\n");
      const where = params.cwd ? s.dim(` in ${visibleLine(params.cwd)}`) : "";
      script.forEach((line, i) => {
        const last = i === script.length - 1;
        lines.push(`${i === 0 ? "Run " : "    "}${s.cyan(line)}${last ? `${where}?` : ""}`);
      });
    }
    if (params.reason)
      visibleText(params.reason)
        .split("\n")
        .forEach((line, i) => {
          lines.push(s.dim(`${i === 0 ? "Reason: " : "        "}${line}`));
        });
    lines.push(
      `${s.bold("y")} yes once   ${s.bold("a")} yes for this session   ${s.bold("n")}/${s.bold("Esc")} no`,
    );
    return lines.flatMap((line) => wrapLine(line, width));
  }
}
