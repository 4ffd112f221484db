/**
 * `write_stdin`: type into a session exec_command started, or poll it, and get the output
 * since the previous call. Waits `yield_time_ms` (default 250; an empty poll at least 5000)
 * unless the process exits first. Reference section 3.
 */
import { z } from "zod";
import { defineFunctionTool, withSerde } from "../define-tool.js";
import { formatAborted } from "../exec-output.js";
import { type ToolDefinition, ToolError } from "../types.js";
import {
  clampYield,
  DEFAULT_WRITE_YIELD_MS,
  existingSessions,
  formatSessionReply,
  MIN_EMPTY_POLL_MS,
  retarget,
} from "./unified-exec.js";

const parameters = z.object({
  chars: z
    .string()
    .optional()
    .describe(
      'What to type, e.g. "print(1)\\n" (include the newline to submit a line) or "\\u0003" for Ctrl-C. Empty just reads new output.',
    ),
  max_output_tokens: withSerde(z.number().int().nonnegative(), { rust: "usize" })
    .optional()
    .describe(
      "Keep at most about this many tokens of output in the reply (default 10000); the middle is cut.",
    ),
  session_id: withSerde(z.number().int(), { rust: "i32" }).describe(
    "The session id an earlier exec_command reply gave.",
  ),
  yield_time_ms: withSerde(z.number().int().nonnegative(), { rust: "u64" })
    .optional()
    .describe(
      "How long to collect output before replying (default 250, at most 30000; at least 5000 when chars is empty). The reply comes sooner if the process exits.",
    ),
});

const DESCRIPTION =
  "Send keystrokes to a running exec_command session (tty sessions only) or just wait for more of its output. " +
  "Replies with the output since your last call and either the exit code or the session id again.";

const STDIN_CLOSED =
  "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open";

/** The write_stdin tool; it reaches the sessions exec_command started in the same thread. */
export function writeStdinTool(): ToolDefinition {
  return defineFunctionTool({
    name: "write_stdin",
    description: DESCRIPTION,
    parameters,
    // Keystrokes to one session must arrive in the order the model sent them.
    supportsParallel: false,
    handle: async (args, inv) => {
      const started = performance.now();
      const { turn } = inv;
      const manager = existingSessions(turn);
      const session = manager?.get(args.session_id);
      if (!manager || !session)
        throw ToolError.respond(`write_stdin failed: Unknown process id ${args.session_id}`);
      const chars = args.chars ?? "";
      if (chars !== "" && !session.tty) throw ToolError.respond(STDIN_CLOSED);

      retarget(session, turn);
      const wait =
        chars === ""
          ? clampYield(args.yield_time_ms, DEFAULT_WRITE_YIELD_MS, MIN_EMPTY_POLL_MS)
          : clampYield(args.yield_time_ms, DEFAULT_WRITE_YIELD_MS);
      const result = await manager.interact(session, chars, started + wait, turn.signal);
      const wallMs = performance.now() - started;
      if (result.aborted) return { content: formatAborted(wallMs), success: false };
      const content = formatSessionReply({
        wallMs,
        session,
        exit: result.exit,
        output: result.output,
        maxOutputTokens: args.max_output_tokens,
      });
      return { content, success: result.exit ? result.exit.exitCode === 0 : true };
    },
  });
}
