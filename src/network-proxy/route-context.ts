/** What a route's listeners share: its policy, its live sockets, and where its blocks go. */
import type { Agent } from "node:http";
import type { RoutePolicy } from "./decide.js";
import type { SocketSet } from "./tunnel.js";
import type { ProxyBlock } from "./types.js";

export interface RouteContext {
  policy: RoutePolicy;
  sockets: SocketSet;
  /** Keep-alive connections to upstream servers for plain HTTP, keyed by the checked address. */
  agent: Agent;
  /** Reports a block to the route's owner; never throws. */
  reportBlock(block: ProxyBlock): void;
}
