/**
 * Which command lines open the terminal UI: none, a prompt, Codex's global flags, `resume`
 * (id, --last, --all); every other top-level command (and unknown flags) goes to the full parser.
 */
import { describe, expect, it } from "vitest";
import { parseTuiArgs } from "../../src/frontends/tui/args.js";

describe("parseTuiArgs", () => {
  it("opens the UI with no arguments, a prompt, or global flags", () => {
    expect(parseTuiArgs([])).toEqual({ config: [] });
    expect(parseTuiArgs(["fix", "the test"])).toMatchObject({ prompt: "fix the test" });
    expect(parseTuiArgs(["-m", "o3", "-s", "read-only", "-a", "never", "-c", "k=1", "hi"])).toEqual({
      model: "o3",
      sandbox: "read-only",
      approvalPolicy: "never",
      config: ["k=1"],
      prompt: "hi",
    });
    expect(parseTuiArgs(["--full-auto"])).toMatchObject({
      sandbox: "workspace-write",
      approvalPolicy: "on-request",
    });
    expect(parseTuiArgs(["--remote=ws://127.0.0.1:1"])).toMatchObject({ remote: "ws://127.0.0.1:1" });
    expect(
      parseTuiArgs(["--remote", "ws://127.0.0.1:1", "--remote-auth-token-env", "APPTOK", "hi"]),
    ).toMatchObject({ remote: "ws://127.0.0.1:1", remoteAuthTokenEnv: "APPTOK", prompt: "hi" });
  });

  it("takes images (-i, repeated or comma-separated), --oss and -p", () => {
    expect(parseTuiArgs(["-i", "a.png,b.png", "--image", "c.png", "look"])).toMatchObject({
      images: ["a.png", "b.png", "c.png"],
      prompt: "look",
    });
    expect(parseTuiArgs(["--oss"])).toEqual({ model: "gpt-oss:20b", config: ['model_provider="oss"'] });
    expect(parseTuiArgs(["--oss", "-m", "qwen3"])).toMatchObject({ model: "qwen3" });
    expect(parseTuiArgs(["-p", "fast", "resume", "--last"])).toMatchObject({
      resume: "last",
      config: ['profile="fast"'],
    });
  });

  it("resume takes an id or --last, and --all (every directory's threads)", () => {
    expect(parseTuiArgs(["resume", "--last"])).toMatchObject({ resume: "last" });
    expect(parseTuiArgs(["resume"])).toMatchObject({ resume: "pick" });
    expect(parseTuiArgs(["resume"])?.all).toBeUndefined();
    expect(parseTuiArgs(["resume", "--all"])).toMatchObject({ resume: "pick", all: true });
    expect(parseTuiArgs(["resume", "--last", "--all"])).toMatchObject({ resume: "last", all: true });
    expect(parseTuiArgs(["-m", "o3", "resume", "abc"])).toMatchObject({ resume: "abc", model: "o3" });
  });

  it("leaves other commands and unknown flags to the full parser", () => {
    for (const argv of [
      ["exec", "hi"],
      ["sessions", "list"],
      ["mcp", "list"],
      ["app-server"],
      ["--json"],
      ["-m"],
      ["--all"],
    ])
      expect(parseTuiArgs(argv)).toBeNull();
  });
});
