/**
 * `tscodex review` / `tscodex exec review` end to end (`npm run build` first): a scripted repo
 * with a committed file, an edit and an untracked file; the model (fake server) answers with
 * Codex's review structure, which exec shows as text, or as JSON with --json / -o.
 */
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";

const h = useExecHarness();

function git(...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd: h.work,
    encoding: "utf8",
  });
}

async function scriptedRepo(): Promise<void> {
  await writeFile(join(h.work, "calc.js"), "function add(a, b) {\n  return a + b;\n}\n");
  git("add", ".");
  git("commit", "-qm", "add");
  await writeFile(join(h.work, "calc.js"), "function add(a, b) {\n  return a - b;\n}\n");
  await writeFile(join(h.work, "notes.txt"), "untracked note\n");
}

const review = () => ({
  findings: [
    {
      title: "[P1] add() subtracts",
      body: "`add` now returns `a - b`.",
      confidence_score: 0.9,
      priority: 1,
      code_location: { absolute_file_path: join(h.work, "calc.js"), line_range: { start: 2, end: 2 } },
    },
  ],
  overall_correctness: "patch is incorrect",
  overall_explanation: "The edit breaks addition.",
  overall_confidence_score: 0.8,
});

describe("tscodex review", () => {
  it("--uncommitted: the diff (tracked and untracked) goes to a read-only turn; findings print as text", async () => {
    await scriptedRepo();
    h.server.enqueue(turn(message(JSON.stringify(review()))));
    const result = await h.cli(["review", "--uncommitted"]);
    expect(result.stderr).not.toContain("Error");
    expect(result.code).toBe(0);
    const request = h.server.requests[0];
    const sent = JSON.stringify(request?.input);
    expect(sent).toContain("-  return a + b;");
    expect(sent).toContain("+  return a - b;");
    expect(sent).toContain("+untracked note");
    expect(sent).toContain("sandbox_mode=read-only");
    const text = (request?.body.text ?? {}) as { format?: { type: string; schema: { required: string[] } } };
    const format = text.format;
    expect(format?.type).toBe("json_schema");
    expect(format?.schema.required).toEqual([
      "findings",
      "overall_correctness",
      "overall_explanation",
      "overall_confidence_score",
    ]);
    expect(result.stdout).toContain("Review: patch is incorrect (confidence 0.8)");
    expect(result.stdout).toContain("- [P1] add() subtracts");
    expect(result.stdout).toContain(`${join(h.work, "calc.js")}:2 (confidence 0.9)`);
  });

  it("top-level -C / -c before `review`, and `exec review --commit --json -o` keep the JSON", async () => {
    await scriptedRepo();
    git("commit", "-qam", "break add");
    const sha = git("rev-parse", "HEAD").trim();
    h.server.enqueue(turn(message(JSON.stringify(review()))), turn(message(JSON.stringify(review()))));

    const top = await h.cli(
      ["-C", h.work, "-c", 'model="gpt-5.1-codex"', "review", "--commit", sha, "--title", "break add"],
      {
        cwd: h.home,
      },
    );
    expect(top.code).toBe(0);
    expect(h.server.requests[0]?.body.model).toBe("gpt-5.1-codex");
    expect(JSON.stringify(h.server.requests[0]?.input)).toContain(`commit ${sha}: break add`);
    expect(JSON.stringify(h.server.requests[0]?.input)).toContain("+  return a - b;");

    const out = join(h.home, "review.json");
    const json = await h.cli(["exec", "review", "--commit", sha, "--json", "-o", out]);
    expect(json.code).toBe(0);
    const events = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; item?: { type: string; text?: string } });
    const final = events.find((event) => event.item?.type === "agent_message");
    expect(JSON.parse(final?.item?.text ?? "")).toEqual(review());
    expect(JSON.parse(await readFile(out, "utf8"))).toEqual(review());
  });

  it("refuses conflicting or missing targets", async () => {
    const both = await h.cli(["review", "--uncommitted", "--base", "main"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("choose one of --uncommitted, --base and --commit");
    const none = await h.cli(["review"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("say what to review");
    expect(h.server.requests).toHaveLength(0);
  });
});
