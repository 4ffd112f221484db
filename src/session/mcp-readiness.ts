/**
 * A thread's MCP servers: they live as long as the thread (its resources close them at
 * shutdown), and its first turn waits for them, each bounded by its startup_timeout_sec, so
 * their tools are offered from the first request. A failed server is reported and skipped; a
 * `required` one that did not start fails the turn (and every later one).
 */
import type { Event } from "../protocol/events.js";
import { type ResourceScope, resourceKey } from "../util/resource-scope.js";
import type { ThreadServices } from "./services.js";

type McpStartup = NonNullable<ThreadServices["mcp"]>;

const MCP_SERVERS = resourceKey<McpStartup>("mcp-servers");

export class McpReadiness {
  private ready = false;

  constructor(
    private readonly mcp: McpStartup | undefined,
    resources: ResourceScope,
  ) {
    if (mcp) resources.use(MCP_SERVERS, () => mcp);
  }

  /** Wait until the servers started (once); throws when a required one did not. */
  async wait(emit: (event: Event) => void, signal: AbortSignal): Promise<void> {
    if (this.ready || !this.mcp) return;
    await this.mcp.whenReady(emit, signal);
    if (signal.aborted) return;
    const failure = this.mcp.requiredFailure();
    if (failure) throw new Error(failure);
    this.ready = true;
  }
}
