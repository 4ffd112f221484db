/** What a Thread is built from: the model client, the tools and the fixed prompt parts. */
import type { ModelClient } from "../model/types.js";
import type { ToolRouter } from "../tools/router.js";
import type { TruncationPolicy } from "../tools/types.js";

export interface ThreadServices {
  client: ModelClient;
  router: ToolRouter;
  baseInstructions: string;
  developerInstructions?: string | undefined;
  parallelToolCalls: boolean;
  contextWindow: number | null;
  truncation: TruncationPolicy;
  projectDocMaxBytes: number;
  shellPath: string;
  shellEnvironment: Record<string, string>;
}
