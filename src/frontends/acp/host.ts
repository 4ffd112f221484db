/** Where an ACP session talks: the client's side of the connection and what it can do. */
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";
import type { Config } from "../../config/load.js";

export interface SessionHost {
  client: AgentContext;
  capabilities: ClientCapabilities;
  config: Config;
}
