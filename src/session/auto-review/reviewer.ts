/**
 * The reviewer: one structured-output model request per approval question, answered with a
 * validated verdict. It fails closed: an answer that is not the contract, an HTTP or stream
 * failure (after the model client's own retries), or no answer within `timeoutMs` is never an
 * approval.
 *
 * The reviewer has no side effects: it reads the evidence it is given, may make a few read-only
 * checks (read a file, list a directory, search contents: checks.ts), and answers.
 * Its requests go to the configured provider (any OpenAI-compatible one, either wire) and are
 * recognisable there: session id and cache key `guardian:<parent thread id>`, and Codex's
 * `x-openai-subagent: guardian` and `x-codex-parent-thread-id` headers.
 */
import { createModelClient } from "../../model/client.js";
import { findModelFamily } from "../../model/family.js";
import { ModelError, type ModelRequestSettings, type Prompt, type ResponseEvent } from "../../model/types.js";
import type { ReviewOutcome } from "../../protocol/auto-review.js";
import { messageText, type ResponseItem } from "../../protocol/items.js";
import { errorMessage } from "../../util/errors.js";
import { VERSION } from "../../version.js";
import { CHECK_TOOLS, MAX_CHECK_ROUNDS, runCheck } from "./checks.js";
import { ABORTED_MESSAGE, deniedMessage, failedMessage, timedOutMessage } from "./messages.js";
import { reviewPrompt } from "./prompt.js";
import { DEFAULT_REVIEW_REASONING_EFFORT, type ReviewerSettings } from "./settings.js";
import type { ApprovalReviewer, ReviewInput } from "./types.js";
import { parseVerdict } from "./verdict.js";

export interface ReviewerOptions {
  /** The model client's first retry backoff in ms (tests set it near 0). */
  retryBaseMs?: number;
}

const DEFAULT_ORIGINATOR = "tscodex";

/** A reviewer for one session's settings; cheap (each review opens its own request). */
export function createApprovalReviewer(
  settings: ReviewerSettings,
  options: ReviewerOptions = {},
): ApprovalReviewer {
  return { review: (input) => review(settings, options, input) };
}

async function review(
  settings: ReviewerSettings,
  options: ReviewerOptions,
  input: ReviewInput,
): Promise<ReviewOutcome> {
  if (input.signal.aborted) return aborted();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), settings.timeoutMs);
  const signal = AbortSignal.any([input.signal, deadline.signal]);
  try {
    const text = await finalMessage(settings, options, input, signal);
    const verdict = parseVerdict(text);
    if (!verdict.ok) return failed(verdict.error);
    const { assessment } = verdict;
    if (assessment.outcome === "allow") return { status: "approved", assessment, message: null };
    return { status: "denied", assessment, message: deniedMessage(assessment) };
  } catch (error) {
    // The turn's interruption wins over our own deadline when both fired.
    if (input.signal.aborted) return aborted();
    if (deadline.signal.aborted) {
      return { status: "timedOut", assessment: null, message: timedOutMessage(settings.timeoutMs) };
    }
    return failed(requestFailure(error));
  } finally {
    clearTimeout(timer);
  }
}

/** Sends the review request and returns the reviewer's last message (its answer). */
async function finalMessage(
  settings: ReviewerSettings,
  options: ReviewerOptions,
  input: ReviewInput,
  signal: AbortSignal,
): Promise<string> {
  const originator = settings.originator ?? DEFAULT_ORIGINATOR;
  const client = createModelClient({
    provider: {
      ...settings.provider,
      httpHeaders: {
        ...settings.provider.httpHeaders,
        "x-openai-subagent": "guardian",
        "x-codex-parent-thread-id": input.parentThreadId,
      },
    },
    settings: requestSettings(settings),
    identity: {
      sessionId: `guardian:${input.parentThreadId}`,
      originator,
      userAgent: `${originator}/${VERSION} (${process.platform}; ${process.arch}) node/${process.versions.node}`,
    },
    ...(options.retryBaseMs !== undefined ? { retryBaseMs: options.retryBaseMs } : {}),
  });
  const base: Prompt = reviewPrompt(input, settings.policy);
  const input_: ResponseItem[] = [...base.input];
  // A few rounds of read-only checks (checks.ts), then an answer: the last round offers no tools.
  for (let round = 0; ; round++) {
    const checks = round < MAX_CHECK_ROUNDS;
    const prompt: Prompt = { ...base, input: input_, tools: checks ? CHECK_TOOLS : [] };
    const { message, calls } = await answerOf(client.stream(prompt, { signal }));
    if (!checks || calls.length === 0) return message;
    for (const call of calls) {
      input_.push(call, {
        type: "function_call_output",
        call_id: call.call_id,
        output: await runCheck(call.name, call.arguments, input.cwd, signal),
      });
    }
  }
}

/** One response: its last assistant message and the checks it called. */
async function answerOf(
  stream: AsyncIterable<ResponseEvent>,
): Promise<{ message: string; calls: Extract<ResponseItem, { type: "function_call" }>[] }> {
  let messages: string[] = [];
  let calls: Extract<ResponseItem, { type: "function_call" }>[] = [];
  let deltas = "";
  for await (const event of stream) {
    if (event.type === "stream_restart") {
      messages = [];
      calls = [];
      deltas = "";
    } else if (event.type === "output_text_delta") deltas += event.delta;
    else if (event.type === "output_item_done") {
      const { item } = event;
      if (item.type === "message" && item.role === "assistant") messages.push(messageText(item));
      else if (item.type === "function_call") calls.push(item);
    } else if (event.type === "completed") break;
  }
  return { message: messages.at(-1) ?? deltas, calls };
}

/** Reasoning at low effort when the model takes it (or whatever effort was configured). */
function requestSettings(settings: ReviewerSettings): ModelRequestSettings {
  const family = findModelFamily(settings.model);
  const effort = settings.reasoningEffort ?? (family.reasoning ? DEFAULT_REVIEW_REASONING_EFFORT : undefined);
  const verbosity = family.defaultVerbosity ? { textVerbosity: family.defaultVerbosity } : {};
  if (!effort) return { model: settings.model, reasoning: null, include: [], ...verbosity };
  const summary = family.reasoning?.summary;
  return {
    model: settings.model,
    reasoning: { effort, ...(summary ? { summary } : {}) },
    include: ["reasoning.encrypted_content"],
    ...verbosity,
  };
}

/** One line on why the request failed; the provider's body clipped, it may be a whole page. */
function requestFailure(error: unknown): string {
  if (error instanceof ModelError && error.kind === "http") {
    const body = error.message.replace(/\s+/g, " ").trim();
    const detail = body.length > 200 ? `${body.slice(0, 200)}…` : body;
    return `the review request failed with HTTP ${error.status ?? "error"} (${detail})`;
  }
  return `the review request failed: ${errorMessage(error)}`;
}

function failed(detail: string): ReviewOutcome {
  return { status: "failed", assessment: null, message: failedMessage(detail) };
}

function aborted(): ReviewOutcome {
  return { status: "aborted", assessment: null, message: ABORTED_MESSAGE };
}
