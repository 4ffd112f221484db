/**
 * Sub-agents: child threads a thread's model starts with `spawn_agent` and steers with
 * `send_input`, `wait`, `resume_agent` and `close_agent`. A status serializes as Codex's
 * AgentStatus does: a bare string, or `{"completed": "<final message>"}` / `{"errored": "…"}`.
 */
export type AgentStatus =
  | "pending_init"
  | "running"
  | "interrupted"
  | "shutdown"
  | "not_found"
  | { completed: string | null }
  | { errored: string };

/** True when the child is not working (a wait on it returns). */
export function isFinal(status: AgentStatus): boolean {
  return status !== "pending_init" && status !== "running";
}

/** A question for the user (`request_user_input`), with suggested answers. */
export interface UserQuestion {
  id: string;
  header: string;
  question: string;
  options?: { label: string; description: string }[] | undefined;
}

/** The answers, by question id (Codex's `{"answers": {qid: {"answers": [...]}}}`). */
export interface UserInputResponse {
  answers: Record<string, { answers: string[] }>;
}

/** A front-end's reply: the answers, "declined" (the user chose not to), or null (nobody to ask). */
export type UserInputReply = UserInputResponse | "declined" | null;

/** What request_user_input gets from the front-end: the answers, or why there are none. */
export type UserInputOutcome =
  | { kind: "answered"; response: UserInputResponse }
  | { kind: "unavailable" }
  | { kind: "declined" }
  | { kind: "timed_out"; timeoutMs: number }
  | { kind: "aborted" };
