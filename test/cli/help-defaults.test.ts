/**
 * The help says the defaults each command really has: `-a` defaults to on-request in the
 * terminal UI (its status line says so) and to never in exec (its transcript says so).
 */
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";

const h = useExecHarness();

/** The help's `-a` description, its wrapped lines joined. */
function approvalHelp(help: string): string {
  const start = help.indexOf("-a, --ask-for-approval");
  const rest = help.slice(start).split("\n");
  const lines = [rest[0] ?? ""];
  for (const line of rest.slice(1)) {
    if (!/^\s{20,}\S/.test(line)) break;
    lines.push(line.trim());
  }
  return lines.join(" ").replace(/\s+/g, " ");
}

describe("help and behaviour agree on -a's default", () => {
  it("says on-request for the terminal UI and never for exec, as each runs", async () => {
    const top = approvalHelp((await h.cli(["--help"])).stdout);
    expect(top).toContain("default: on-request in the terminal UI, never in exec");
    expect(approvalHelp((await h.cli(["exec", "--help"])).stdout)).toBe(top);
    h.server.enqueue(turn(message("ok")));
    const run = await h.exec(["go"]);
    expect(run.stderr).toContain("approval: never");
  });
});
