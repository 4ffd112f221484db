/**
 * The `codex` tool's input schema as sent in tools/list: Codex's fields (names as
 * reference/mcp-server records; descriptions ours) and the compatibility spellings.
 */
import { APPROVAL_POLICIES, SANDBOX_MODES } from "../../protocol/policy.js";
import type { JsonSchemaObject } from "./server-tool.js";

const str = (description: string) => ({ type: "string", description });
const bool = (description: string) => ({ type: "boolean", description });

/** JSON Schema of the `codex` tool's arguments. */
export function codexInputSchema(): JsonSchemaObject {
  return {
    type: "object",
    properties: {
      prompt: str("The task for the agent, as a user would type it."),
      "approval-policy": {
        type: "string",
        enum: [...APPROVAL_POLICIES],
        description:
          "When commands need the client's approval: untrusted (all but known-safe), on-failure (re-run " +
          "unsandboxed after a sandbox denial), on-request (the model asks), never. Default on-request.",
      },
      sandbox: {
        type: "string",
        enum: [...SANDBOX_MODES],
        description:
          "What commands may touch: read-only (default), workspace-write (cwd and /tmp), danger-full-access.",
      },
      config: {
        type: "object",
        additionalProperties: true,
        description:
          'config.toml overrides for this thread, as dotted keys: {"model_reasoning_effort": "high"}.',
      },
      cwd: str("Working directory of the thread (default: the server's)."),
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
      image: {
        anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }],
        description: "Image file path(s), relative to cwd, attached to the prompt.",
      },
      pageSize: {
        type: "integer",
        description: "Split a long result into pages of this many characters (default 40000, 1000–200000).",
      },
      pageToken: str(
        "Fetch the next page of an earlier result (its nextPageToken); the prompt is then ignored.",
      ),
      background: bool("Return at once with the threadId and run the turn in the background."),
      approvalPolicy: {
        type: "string",
        enum: [...APPROVAL_POLICIES],
        description: "Alias of approval-policy.",
      },
      workingDirectory: str("Alias of cwd."),
      baseInstructions: str("Alias of base-instructions."),
    },
    required: ["prompt"],
  };
}
