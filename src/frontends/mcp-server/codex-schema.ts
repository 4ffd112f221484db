/**
 * The schemas of the `codex` and `codex-reply` tools: Codex's fields (names as
 * reference/mcp-server records; descriptions ours) and the compatibility spellings. Each is the
 * one source of both the arguments' validation and the JSON schema tools/list shows.
 */
import { z } from "zod";
import { approvalPolicySchema, sandboxModeSchema } from "../../protocol/policy.js";

const str = (description: string) => z.string().optional().describe(description);
const bool = (description: string) => z.boolean().optional().describe(description);
const pageSize = (description: string) => z.number().int().positive().optional().describe(description);

/**
 * The `codex` tool's arguments. `prompt` is required as Codex's schema says, but a call that
 * passes `pageToken` (the next page of an earlier result) may leave it out, so the check that
 * it is there is the tool's own.
 */
export const codexArgs = z
  .object({
    prompt: str("The task for the agent, as a user would type it."),
    "approval-policy": approvalPolicySchema
      .optional()
      .describe(
        "When commands need the client's approval: untrusted (all but known-safe), on-failure (re-run " +
          "unsandboxed after a sandbox denial), on-request (the model asks), never. Default on-request.",
      ),
    sandbox: sandboxModeSchema
      .optional()
      .describe(
        "What commands may touch: read-only (default), workspace-write (cwd and /tmp), danger-full-access.",
      ),
    config: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('config.toml overrides for this thread, as dotted keys: {"model_reasoning_effort": "high"}.'),
    cwd: str("Working directory of the thread: an absolute path to a directory (default: the server's)."),
    model: str("Model name, e.g. gpt-5.2-codex (default from config)."),
    profile: str("A [profiles.NAME] table of config.toml to use."),
    "base-instructions": str("Replaces the built-in base instructions."),
    "developer-instructions": str("Added as a developer message at the start of the thread."),
    "compact-prompt": str("Prompt used when the thread's history is summarised."),
    "include-plan-tool": bool(
      "Offer the update_plan tool (default true; false leaves it out of this thread).",
    ),
    sessionId: str(
      "Continue this thread (a threadId) or a session name you chose; a new name starts a thread.",
    ),
    resetSession: bool("With sessionId: forget that session's history and start afresh."),
    image: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe("Image file path(s), relative to cwd, attached to the prompt."),
    pageSize: pageSize(
      "Split a long result into pages of this many characters (default 40000, 1000–200000).",
    ),
    pageToken: str(
      "Fetch the next page of an earlier result (its nextPageToken); the prompt is then ignored.",
    ),
    background: bool("Return at once with the threadId and run the turn in the background."),
    approvalPolicy: approvalPolicySchema.optional().describe("Alias of approval-policy."),
    workingDirectory: str("Alias of cwd."),
    baseInstructions: str("Alias of base-instructions."),
  })
  .meta({ required: ["prompt"] });
export type CodexArgs = z.infer<typeof codexArgs>;

/** The `codex-reply` tool's arguments: the thread (three spellings) and the next prompt. */
export const replyArgs = z.object({
  prompt: z
    .string({ error: "missing field `prompt`" })
    .describe("The next message to the agent on this thread."),
  threadId: str("The threadId a previous codex or codex-reply result returned."),
  conversationId: str("Deprecated spelling of threadId (Codex)."),
  sessionId: str("Alias of threadId (CLI wrappers)."),
  pageSize: pageSize("Split a long result into pages of this many characters (default 40000)."),
});

/** The structured result both Codex tools declare (open to more fields, as Codex's schema is). */
export const codexOutput = z.looseObject({
  threadId: z.string().describe("The thread to continue with codex-reply."),
  content: z.string().describe("The agent's final message of the turn (this page of it)."),
  nextPageToken: z
    .string()
    .optional()
    .describe("Set when the answer continues: pass it to codex as pageToken for the next page."),
});
