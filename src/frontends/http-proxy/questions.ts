/**
 * What the proxy answers when a turn asks something: an HTTP client cannot be asked in the
 * middle of a response, so approvals get the declared outcome (denied, and the model reads
 * Codex's rejection), questions to the user get no answer (null), and MCP elicitations are
 * declined, all at once instead of after approval_timeout_ms. Client tool calls are not
 * questions here: the turn parks on them and the client's next request answers them.
 */
import type { QuestionResponders } from "../common/turn-driver.js";

export const PROXY_RESPONDERS: QuestionResponders = {
  approval: () => "denied",
  userInput: () => null,
  elicitation: () => ({ action: "decline" }),
};
