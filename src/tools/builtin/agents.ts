/**
 * The collaboration tools (feature `collab`): `spawn_agent`, `send_input`, `resume_agent`,
 * `wait` and `close_agent`. They only translate arguments and results; the thread's agent
 * control (session/agent-control.ts) runs the children, enforces the limits and reports their
 * lifecycle. A refusal (limit reached, unknown agent) is a ToolError.respond the model reads.
 */
import { z } from "zod";
import type { AgentStatus } from "../../protocol/agents.js";
import type { TraceCarrier } from "../../protocol/telemetry.js";
import { defineFunctionTool } from "../define-tool.js";
import type { ToolDefinition, TurnContext } from "../types.js";

export interface SpawnRequest {
  message: string;
  agentType: string | null;
  trace?: TraceCarrier | undefined;
}

/** What the tools need from the thread's agent control. */
export interface AgentCollab {
  /**
   * Start a child on `message`; resolves once it runs. Throws ToolError.respond when refused.
   * `trace`: the call's trace context, which the child's turn joins.
   */
  spawn(request: SpawnRequest, turn: TurnContext): Promise<string>;
  /** Give child `id` more work (after interrupting its current turn when `interrupt`); the turn id. */
  send(id: string, message: string, interrupt: boolean, trace?: TraceCarrier): Promise<string>;
  /** Reopen a closed child (its thread, from disk when needed); its status. */
  resume(id: string, turn: TurnContext): Promise<AgentStatus>;
  /** Wait until one of `ids` is not working, or `timeoutMs`; the finished ones' statuses. */
  wait(
    ids: string[],
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<{ status: Record<string, AgentStatus>; timedOut: boolean }>;
  /** Stop child `id` (its running turn and processes); its status before it closed. */
  close(id: string): Promise<AgentStatus>;
}

/** `wait` without `timeout_ms`; longer waits are capped at MAX_WAIT_MS. */
export const DEFAULT_WAIT_MS = 30_000;
export const MAX_WAIT_MS = 300_000;

const json = (value: unknown) => ({ content: JSON.stringify(value) });

export function agentTools(collab: AgentCollab): ToolDefinition[] {
  return [
    defineFunctionTool({
      name: "spawn_agent",
      description:
        "Start a sub-agent: a new agent with your working directory, policies and tools that works on `message` " +
        "in parallel with you. Returns its agent_id at once; use `wait` to collect its final answer. " +
        "Give each sub-agent a self-contained task (it does not see this conversation).",
      parameters: z.object({
        message: z.string().describe("The task for the sub-agent, complete in itself."),
        agent_type: z
          .string()
          .optional()
          .describe(
            "A named agent from configuration (its model, instructions and tools); default: like you.",
          ),
      }),
      supportsParallel: true,
      handle: async (args, inv) =>
        json({
          agent_id: await collab.spawn(
            {
              message: args.message,
              agentType: args.agent_type ?? null,
              trace: inv.telemetry?.carrier() ?? undefined,
            },
            inv.turn,
          ),
        }),
    }),
    defineFunctionTool({
      name: "send_input",
      description:
        "Send a sub-agent another message. It is queued after the sub-agent's current work, or, with " +
        "`interrupt: true`, the current work is stopped first.",
      parameters: z.object({
        id: z.string().describe("The agent_id from spawn_agent."),
        message: z.string().describe("What the sub-agent should do next."),
        interrupt: z.boolean().optional().describe("Stop the sub-agent's current work first."),
      }),
      supportsParallel: true,
      handle: async (args, inv) => {
        const trace = inv.telemetry?.carrier() ?? undefined;
        return json({
          submission_id: await collab.send(args.id, args.message, args.interrupt ?? false, trace),
        });
      },
    }),
    defineFunctionTool({
      name: "wait",
      description:
        "Wait for sub-agents: returns as soon as any of `ids` has finished its work (or at the timeout), " +
        "with the final message of each one that finished. Call it again for the others.",
      parameters: z.object({
        ids: z.array(z.string()).describe("agent_ids to wait for."),
        timeout_ms: z.number().optional().describe(`How long to wait at most (default ${DEFAULT_WAIT_MS}).`),
      }),
      supportsParallel: false,
      handle: async (args, inv) => {
        const timeout = Math.min(Math.max(0, args.timeout_ms ?? DEFAULT_WAIT_MS), MAX_WAIT_MS);
        const result = await collab.wait(args.ids, timeout, inv.turn.signal);
        return json({ status: result.status, timed_out: result.timedOut });
      },
    }),
    defineFunctionTool({
      name: "close_agent",
      description: "Stop a sub-agent you no longer need: its running work and commands end.",
      parameters: z.object({ id: z.string().describe("The agent_id from spawn_agent.") }),
      supportsParallel: true,
      handle: async (args) => json({ status: await collab.close(args.id) }),
    }),
    defineFunctionTool({
      name: "resume_agent",
      description: "Reopen a sub-agent closed with close_agent, so that send_input can give it more work.",
      parameters: z.object({ id: z.string().describe("The agent_id from spawn_agent.") }),
      supportsParallel: true,
      handle: async (args, inv) => json({ status: await collab.resume(args.id, inv.turn) }),
    }),
  ];
}
