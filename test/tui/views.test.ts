/**
 * The view stack on its own, with the real views: keys go to the top view, a question passes
 * the keys it does not take to the composer, and two prompts at once (an approval arriving while
 * a picker is open) take turns: the approval is drawn and answered first, then the picker is back.
 */
import { describe, expect, it } from "vitest";
import { ApprovalView } from "../../src/frontends/tui/approval.js";
import { Composer } from "../../src/frontends/tui/composer.js";
import type { Key } from "../../src/frontends/tui/keys.js";
import { Picker, pickerView } from "../../src/frontends/tui/picker.js";
import { promptView, QuestionPrompt } from "../../src/frontends/tui/questions.js";
import { createStyle } from "../../src/frontends/tui/style.js";
import { ViewStack } from "../../src/frontends/tui/views.js";
import type { ApprovalRequest } from "../../src/frontends/tui/wire.js";
import { readServerRequest } from "../../src/frontends/tui/wire.js";

const plain = createStyle(false);
const text = (chars: string): Key => ({ name: "text", text: chars });

/** A composer base view, as the app's: it takes every key it is passed. */
function composerBase(composer: Composer) {
  return {
    onKey: (key: Key) => {
      if (key.name === "text") composer.insert(key.text);
      return "consumed" as const;
    },
    rows: () => [`› ${composer.text}`],
  };
}

function approvalRequest(command: string): ApprovalRequest {
  const request = readServerRequest("item/commandExecution/requestApproval", {
    threadId: "t",
    turnId: "u",
    itemId: "i",
    startedAtMs: 0,
    reason: null,
    command,
    cwd: "/w",
    commandActions: null,
    proposedExecpolicyAmendment: null,
  });
  if (request?.method !== "item/commandExecution/requestApproval") throw new Error("not an approval");
  return request;
}

describe("the view stack", () => {
  it("an approval arriving while a picker is open is drawn and answered first; the picker comes back", async () => {
    const composer = new Composer();
    const stack = new ViewStack(composerBase(composer));
    const picked: string[] = [];
    const items = [
      { label: "gpt-a", value: "a" },
      { label: "gpt-b", value: "b" },
    ];
    stack.push(pickerView(new Picker("Select a model", items, (value) => void picked.push(value)), () => {}));
    // The picker stands in place of the composer.
    expect(stack.rows(plain, 80)).toContain("Select a model");
    expect(stack.rows(plain, 80)).not.toContain("› ");

    const decisions: string[] = [];
    const notices: string[] = [];
    const approval = new ApprovalView(
      approvalRequest("rm -rf build"),
      (decision) => decisions.push(decision),
      (line) => notices.push(line),
    );
    stack.push(approval);
    let rows = stack.rows(plain, 80);
    // Only the approval is asked (with the composer under it); the picker waits, undrawn.
    expect(rows[0]).toBe("Approval needed");
    expect(rows.join("\n")).toContain("Run rm -rf build in /w?");
    expect(rows).not.toContain("Select a model");
    expect(rows.at(-1)).toBe("› ");

    // Keys go to the approval: a down arrow and a stray letter reach neither the picker nor the composer.
    stack.onKey({ name: "down" });
    stack.onKey(text("x"));
    expect(composer.text).toBe("");
    expect(decisions).toEqual([]);
    stack.onKey(text("y"));
    expect(decisions).toEqual(["accept"]);
    expect(notices).toEqual(["✔ approved: rm -rf build"]);
    expect(stack.has(approval)).toBe(false);

    // The picker is back, its selection untouched by the keys the approval took.
    rows = stack.rows(plain, 80);
    expect(rows).toContain("Select a model");
    expect(rows.find((row) => row.startsWith("›"))).toMatch(/^› gpt-a/);
    stack.onKey({ name: "enter" });
    await new Promise((resolve) => setImmediate(resolve));
    expect(picked).toEqual(["a"]);
    expect(stack.size).toBe(0);
    expect(stack.rows(plain, 80)).toEqual(["› "]);
  });

  it("a question passes typing to the composer and takes Enter (its answer) and Esc", () => {
    const composer = new Composer();
    const stack = new ViewStack(composerBase(composer));
    const answers: unknown[] = [];
    const declined: Error[] = [];
    const questions = [
      { id: "q1", header: "Pick", question: "Which one?", options: [{ label: "red", description: "" }] },
      { id: "q2", header: "Why", question: "Say why", options: null },
    ];
    const question = new QuestionPrompt(
      questions,
      (value) => answers.push(value),
      (error) => declined.push(error),
    );
    let menuOpen = false;
    stack.push(promptView(question, composer, () => menuOpen));
    stack.onKey(text("1"));
    expect(composer.text).toBe("1");
    expect(stack.rows(plain, 80)).toEqual(expect.arrayContaining(["Pick (1/2)", "› 1"]));
    // While the `@` menu is open, Enter is the menu's (the composer's), not the answer.
    menuOpen = true;
    stack.onKey({ name: "enter" });
    expect(stack.rows(plain, 80)).toContain("Pick (1/2)");
    menuOpen = false;
    stack.onKey({ name: "enter" });
    expect(stack.rows(plain, 80)).toContain("Why (2/2)");
    stack.onKey(text("because"));
    stack.onKey({ name: "enter" });
    expect(answers).toEqual([{ answers: { q1: { answers: ["red"] }, q2: { answers: ["because"] } } }]);
    expect(stack.size).toBe(0);

    const next = new QuestionPrompt(
      questions,
      (value) => answers.push(value),
      (error) => declined.push(error),
    );
    stack.push(promptView(next, composer, () => false));
    stack.onKey({ name: "escape" });
    expect(declined).toHaveLength(1);
    expect(stack.size).toBe(0);
  });

  it("removes a view wherever it is, and the composer takes keys when nothing is open", () => {
    const composer = new Composer();
    const stack = new ViewStack(composerBase(composer));
    stack.onKey(text("hi"));
    expect(composer.text).toBe("hi");
    const a = { onKey: () => "consumed" as const, rows: () => ["a"] };
    const b = { onKey: () => "consumed" as const, rows: () => ["b"] };
    stack.push(a);
    stack.push(b);
    stack.remove(a);
    expect(stack.top).toBe(b);
    expect(stack.rows(plain, 80)).toEqual(["b", "› hi"]);
  });
});
