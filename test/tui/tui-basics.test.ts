/**
 * The terminal UI in a real terminal (tmux) against the fake model: a prompt from the command
 * line streams its answer with Markdown, the status line names the settings, the composer takes
 * typed prompts (Enter submits, Ctrl+J adds a line, Up recalls), Ctrl+D quits with 0; the
 * status line shows the context window left after each turn.
 */
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { delay, message, turn, usage } from "../support/fake-model-server.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();

const open = useTmuxTerminal(h);

describe("tscodex terminal UI", () => {
  it("submits the command-line prompt, streams a Markdown answer, quits on Ctrl+D with 0", async () => {
    h.server.enqueue(turn(message("Here is **bold** and `code`:\n```js\nconst x = 1;\n```\nthe end")));
    const t = await open(["-s", "read-only", "-a", "never", "say hi"]);
    const screen = await t.waitFor("the end");
    expect(screen).toContain("› say hi");
    expect(screen).toContain("Here is bold and code:");
    expect(screen).toContain("const x = 1;");
    expect(screen).toMatch(/gpt-5\.2-codex · sandbox readOnly · approval never/);
    const coloured = await t.capture(true);
    expect(coloured).toContain("\x1b[1mbold");
    expect(h.server.requests[0]?.input.at(-1)).toMatchObject({ role: "user" });
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);
  });

  it("takes typed prompts: Ctrl+J newline, Enter submits, Up recalls, elapsed time while running", async () => {
    h.server.enqueue(turn(delay(1500), message("first answer")), turn(message("second answer")));
    const t = await open([]);
    await t.waitFor("approval");
    await t.type("line one");
    await t.send("C-j");
    await t.type("line two");
    await t.send("Enter");
    await t.waitFor(/working \d+s/);
    const screen = await t.waitFor("first answer");
    expect(screen).toMatch(/› line one\n\s+line two/);
    expect(JSON.stringify(h.server.requests[0]?.input.at(-1))).toContain("line one\\nline two");
    await t.send("Up");
    await t.waitFor(/› line one\n\s+line two\s*\n[^\n]*gpt/);
    await t.send("C-c");
    await t.type("again");
    await t.send("Enter");
    await t.waitFor("second answer");
    await t.send("C-c");
    await t.waitFor("press Ctrl+C again to quit");
    await t.send("C-c");
    expect(await t.exitCode()).toBe(0);
  });

  it("shows the context window left from the server's token usage", async () => {
    // Codex's arithmetic: 12,000 baseline tokens left out of both sides.
    // (100,000 - 12,000 - (51,000 - 12,000)) / (100,000 - 12,000) = 55.7% -> 56%.
    h.server.enqueue(
      turn(message("big answer"), usage({ input: 50_000, output: 1_000 })),
      turn(message("small answer"), usage({ input: 12_000, output: 500 })),
    );
    const t = await open(["-c", "model_context_window=100000", "count me"]);
    let screen = await t.waitFor("big answer");
    expect(screen).not.toContain("100% context left");
    screen = await t.waitFor(/approval on-request · 56% context left$/m);
    await t.type("again");
    await t.send("Enter");
    await t.waitFor("small answer");
    await t.waitFor("· 99% context left");
  });
});
