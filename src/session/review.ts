/**
 * Review mode, shared by `tscodex review` / `exec review` and the MCP `review` tool: what to
 * review (uncommitted changes, a base branch, a commit, or free-form instructions), the prompt
 * that carries the diff, the output structure Codex's review mode uses (as a strict output
 * schema, so the final message is that JSON), and its readable rendering.
 */
import { execFile } from "node:child_process";
import { z } from "zod";
import type { EventOf } from "../protocol/events.js";

/** What to review. */
export type ReviewTarget =
  | { type: "uncommitted" }
  | { type: "base"; branch: string; focus?: string }
  | { type: "commit"; sha: string; title?: string; focus?: string }
  | { type: "custom"; instructions: string };

/** Codex's review output: prioritised findings and an overall verdict. */
export const reviewOutputSchema = z.object({
  findings: z.array(
    z.object({
      title: z.string(),
      body: z.string(),
      confidence_score: z.number(),
      priority: z.number().int().min(0).max(3),
      code_location: z.object({
        absolute_file_path: z.string(),
        line_range: z.object({ start: z.number().int(), end: z.number().int() }),
      }),
    }),
  ),
  overall_correctness: z.string(),
  overall_explanation: z.string(),
  overall_confidence_score: z.number(),
});

export type ReviewOutput = z.infer<typeof reviewOutputSchema>;

/** The same structure as a strict JSON Schema (every key required, nothing else allowed). */
export function reviewJsonSchema(): Record<string, unknown> {
  const object = (properties: Record<string, unknown>) => ({
    type: "object",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  });
  const lineRange = object({ start: { type: "integer" }, end: { type: "integer" } });
  const finding = object({
    title: { type: "string", description: "one line, at most 80 characters, starting with [P0]..[P3]" },
    body: { type: "string", description: "why it is a problem, in markdown, one paragraph" },
    confidence_score: { type: "number", minimum: 0, maximum: 1 },
    priority: { type: "integer", minimum: 0, maximum: 3 },
    code_location: object({ absolute_file_path: { type: "string" }, line_range: lineRange }),
  });
  return object({
    findings: { type: "array", items: finding },
    overall_correctness: { type: "string", enum: ["patch is correct", "patch is incorrect"] },
    overall_explanation: { type: "string" },
    overall_confidence_score: { type: "number", minimum: 0, maximum: 1 },
  });
}

/** Diffs larger than this are cut; the reviewer can still run git itself (read-only). */
const MAX_DIFF_BYTES = 256 * 1024;

const GUIDE = [
  "You are reviewing code changes as a careful senior engineer. You may read files and run",
  "read-only commands (git, rg, cat) in the workspace; do not change anything.",
  "Report only real problems the author would want to fix: bugs, security issues, broken",
  "behaviour, missing error handling, clear performance traps. Skip style nits and anything",
  "that was already wrong before this change. Each finding names one problem, the file",
  "(absolute path) and the shortest line range that shows it, a priority (0: blocks release,",
  "1: urgent, 2: normal, 3: low) and how confident you are (0 to 1).",
  "Then judge the change as a whole: 'patch is correct' when it has no blocking problem,",
  "else 'patch is incorrect', with a short explanation and your confidence.",
  "Your final message is the JSON object the output schema describes, and nothing else.",
].join("\n");

/** A short line naming the target (human output, MCP progress). */
export function describeTarget(target: ReviewTarget): string {
  switch (target.type) {
    case "uncommitted":
      return "current changes (staged, unstaged and untracked)";
    case "base":
      return `changes against base branch ${target.branch}`;
    case "commit":
      return `commit ${target.sha}${target.title ? `: ${target.title}` : ""}`;
    case "custom":
      return target.instructions;
  }
}

/** The review prompt for `target` in the repository at `cwd`, with the diff it concerns. */
export async function reviewPrompt(target: ReviewTarget, cwd: string): Promise<string> {
  if (target.type === "custom") return `${GUIDE}\n\nReview request:\n${target.instructions}`;
  const diff = await targetDiff(target, cwd);
  const body = diff.trim() === "" ? "(the diff is empty: there is nothing to review)" : cut(diff);
  const focus = target.type !== "uncommitted" && target.focus ? `\nAlso: ${target.focus}\n` : "";
  return `${GUIDE}\n\nReview the ${describeTarget(target)} in ${cwd}.\n${focus}\n<diff>\n${body}\n</diff>`;
}

async function targetDiff(target: Exclude<ReviewTarget, { type: "custom" }>, cwd: string): Promise<string> {
  if (target.type === "commit") return git(cwd, ["show", "--format=commit %H%n%n%B", target.sha]);
  if (target.type === "base") {
    const mergeBase = (await git(cwd, ["merge-base", "HEAD", target.branch])).trim();
    return git(cwd, ["diff", mergeBase]);
  }
  const hasHead = await git(cwd, ["rev-parse", "--verify", "HEAD"]).then(
    () => true,
    () => false,
  );
  const tracked = hasHead
    ? await git(cwd, ["diff", "HEAD"])
    : (await git(cwd, ["diff", "--cached"])) + (await git(cwd, ["diff"]));
  const untracked = (await git(cwd, ["ls-files", "--others", "--exclude-standard", "-z"]))
    .split("\0")
    .filter(Boolean);
  const added = await Promise.all(
    // `diff --no-index` exits 1 when the files differ: its output is the point.
    untracked.map((path) => git(cwd, ["diff", "--no-index", "--", "/dev/null", path], [0, 1])),
  );
  return [tracked, ...added].join("");
}

function git(cwd: string, args: string[], okCodes: number[] = [0]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile("git", args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      if (okCodes.includes(code)) resolvePromise(stdout);
      else reject(new Error(`git ${args.join(" ")} failed: ${stderr.trim() || error?.message}`));
    });
  });
}

function cut(diff: string): string {
  const bytes = Buffer.from(diff, "utf8");
  if (bytes.length <= MAX_DIFF_BYTES) return diff;
  return `${bytes.subarray(0, MAX_DIFF_BYTES).toString("utf8")}\n[diff cut at ${MAX_DIFF_BYTES} bytes; run git to see the rest]`;
}

/** The final message as review output, or null when it is not that JSON. */
export function parseReviewOutput(text: string): ReviewOutput | null {
  try {
    const parsed = reviewOutputSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Readable text: the verdict, then each finding as `[P1] title` with `file:start-end` and its body. */
export function renderReview(output: ReviewOutput): string {
  const lines = [
    `Review: ${output.overall_correctness} (confidence ${output.overall_confidence_score})`,
    output.overall_explanation,
  ];
  if (output.findings.length === 0) lines.push("", "No findings.");
  for (const finding of output.findings) {
    const { absolute_file_path: file, line_range: range } = finding.code_location;
    const where =
      range.start === range.end ? `${file}:${range.start}` : `${file}:${range.start}-${range.end}`;
    const title = /^\[P\d\]/.test(finding.title) ? finding.title : `[P${finding.priority}] ${finding.title}`;
    lines.push("", `- ${title}`, `  ${where} (confidence ${finding.confidence_score})`);
    for (const line of finding.body.split("\n")) lines.push(`  ${line}`);
  }
  return lines.join("\n");
}

/** What Codex shows when the reviewer gave no verdict. */
export const REVIEW_FAILED = "Reviewer failed to output a response.";

/**
 * The end of a review turn: its final message as the readable verdict (the message itself when
 * it is not the review JSON).
 */
export function exitedReviewMode(turnId: string, finalMessage: string | null): EventOf<"exited_review_mode"> {
  const output = finalMessage?.trim() ? parseReviewOutput(finalMessage) : null;
  const review = output ? renderReview(output) : finalMessage?.trim() ? finalMessage : REVIEW_FAILED;
  return { type: "exited_review_mode", turn_id: turnId, review };
}

/** Turn CLI / tool options into a target; an error message when they conflict or say nothing. */
export function reviewTarget(options: {
  uncommitted?: boolean | undefined;
  base?: string | undefined;
  commit?: string | undefined;
  title?: string | undefined;
  prompt?: string | undefined;
}): ReviewTarget | string {
  const chosen = [options.uncommitted ? 1 : 0, options.base ? 1 : 0, options.commit ? 1 : 0].reduce(
    (a, b) => a + b,
    0,
  );
  if (chosen > 1) return "choose one of --uncommitted, --base and --commit";
  if (options.uncommitted) {
    if (options.prompt) return "a review prompt cannot be combined with --uncommitted";
    return { type: "uncommitted" };
  }
  const focus = options.prompt ? { focus: options.prompt } : {};
  if (options.base) return { type: "base", branch: options.base, ...focus };
  if (options.commit)
    return {
      type: "commit",
      sha: options.commit,
      ...(options.title ? { title: options.title } : {}),
      ...focus,
    };
  if (options.prompt) return { type: "custom", instructions: options.prompt };
  return "say what to review: --uncommitted, --base BRANCH, --commit SHA, or a prompt";
}
