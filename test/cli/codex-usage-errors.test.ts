/**
 * The command line's answers to what a Codex 0.171 user types (reference cli-parity.md Part 1
 * §9, §10), through the real CLI: a usage error is a short message and exit 2; a Codex command
 * tscodex lacks is refused as such, on a pipe and on a terminal, and never reaches the model; a
 * bare word on a pipe is the UI's prompt, which needs a terminal (exit 1, as Codex); `e` is exec.
 */
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();
const openTerminal = useTmuxTerminal(h);
const lines = (text: string) => text.split("\n");

describe("usage errors: a short message, exit 2", () => {
  it("an unknown flag: the error, the command's usage, a pointer to --help; nothing on stdout", async () => {
    const exec = await h.cli(["exec", "--bogus-flag", "hi"]);
    expect(exec.code).toBe(2);
    expect(exec.stdout).toBe("");
    // Codex's (clap's) words for it, which scripts grep for.
    expect(lines(exec.stderr)).toEqual([
      "error: unexpected argument '--bogus-flag' found",
      "",
      "  tip: to pass '--bogus-flag' as a value, use '-- --bogus-flag'",
      "",
      "Usage: tscodex exec [options] [command] [prompt]",
      "",
      "For more information, try '--help'.",
      "",
    ]);
    const top = await h.cli(["--bogus-flag"]);
    expect(top.code).toBe(2);
    expect(lines(top.stderr)[4]).toBe("Usage: tscodex [options] [command] [prompt...]");
    expect(lines(top.stderr).length).toBeLessThan(9);
    // A near miss gets the option it is near.
    const near = await h.cli(["exec", "--skip-git-repo-chek", "hi"]);
    expect(near.code).toBe(2);
    expect(near.stderr).toContain("  tip: a similar argument exists: '--skip-git-repo-check'");
    // A bad choice is one too.
    expect((await h.cli(["exec", "-s", "nowhere", "hi"])).code).toBe(2);
    expect(h.server.requests).toHaveLength(0);
  });
});

describe("Codex commands tscodex does not have", () => {
  it("on a pipe: refused by name, exit 2, no request", async () => {
    for (const args of [["cloud"], ["cloud", "list", "--json"], ["apply", "task_1"], ["plugin"], ["app"]]) {
      const result = await h.cli(args, { stdin: "hi\n" });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toContain(
        `tscodex: \`${args[0]}\` is a Codex command that tscodex does not have`,
      );
    }
    expect(h.server.requests).toHaveLength(0);
  });

  it("on a terminal: refused too, not opened as the UI's first prompt", async () => {
    h.server.enqueue(turn(message("should never be asked")));
    const terminal = await openTerminal(["cloud"]);
    // The UI would wait for the user; the refusal ends at once, as on a pipe (the message: above).
    expect(await terminal.exitCode()).toBe(2);
    expect(h.server.requests).toHaveLength(0);
  });

  it("doctor, features, logout, completion are commands, never a prompt sent to the model", async () => {
    // (`login` too; left out here: bare, it may wait for the user.)
    for (const word of ["doctor", "features", "logout", "completion"]) {
      const terminal = await openTerminal([word]);
      // Whatever the command does (its own part of tscodex), it ends without opening a turn;
      // a probe of the provider (doctor's) is not a turn.
      await terminal.exitCode();
      const turns = h.server.requests.filter(
        (request) => request.method === "POST" && request.wire !== "other",
      );
      expect(turns, word).toHaveLength(0);
    }
  });
});

describe("a bare word stays a prompt", () => {
  it("on a pipe the UI cannot start: exit 1 and why, no request (Codex: stdin is not a terminal)", async () => {
    const result = await h.cli(["doctorx"], { stdin: "hi\n" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("tscodex: the interactive UI needs a terminal");
    expect(result.stderr).not.toContain("Commands:");
    expect(h.server.requests).toHaveLength(0);
  });
});

describe("`e`, Codex's alias for exec", () => {
  it("runs exec, through the fast path and through the full parser", async () => {
    h.server.enqueue(turn(message("one")), turn(message("two")));
    const plain = await h.cli(["e", "hi"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe("one\n");
    // `e resume` is commander's to parse (the fast path reads plain execs only).
    const resumed = await h.cli(["e", "resume", "--last", "again"]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("two\n");
    expect(h.server.requests).toHaveLength(2);
  });
});
