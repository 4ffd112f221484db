/** ThreadServices for tests that drive a Thread with a scripted model client and chosen tools. */
import type { ModelClient } from "../../src/model/types.js";
import type { ThreadServices } from "../../src/session/services.js";
import type { ToolDefinition } from "../../src/tools/types.js";
import { allowAllGate, directOrchestrator } from "./turn-context.js";

export function testThreadServices(
  client: ModelClient,
  tools: readonly ToolDefinition[],
  overrides: Partial<ThreadServices> = {},
): ThreadServices {
  return {
    client,
    tools,
    gate: allowAllGate,
    orchestrator: directOrchestrator,
    baseInstructions: "base",
    parallelToolCalls: true,
    contextWindow: 1000,
    truncation: { mode: "bytes", limit: 10_000 },
    projectDocMaxBytes: 0,
    shellPath: "/bin/bash",
    shellEnvironment: {},
    ...overrides,
  };
}
