/**
 * What a method handler gets besides its params: the shared runtime, the calling client's
 * session (as far as handlers use it), and a way to act once the reply is sent.
 */
import type { TraceCarrier } from "../../../protocol/telemetry.js";
import type { ClientLink } from "../client-link.js";
import type { ConnectionScope } from "../connection-scope.js";
import type { AppServerRuntime } from "../runtime.js";
import type { ThreadChannel } from "../thread-channel.js";

export interface ClientInfo {
  name: string;
  version: string;
  title?: string | null | undefined;
}

/** The calling client, as handlers see it. */
export interface SessionHandle extends ClientLink {
  /** Set by initialize. */
  clientInfo: ClientInfo | null;
  /** `initialize.capabilities.experimentalApi`: allows client tools (`dynamicTools`). */
  experimentalApi: boolean;
  /** Aborted when the connection closes (stops what the client started outside turns). */
  readonly signal: AbortSignal;
  /** Bytes sent that the client has not taken yet (streamed output waits while it is high). */
  backlog(): number;
  /** Processes, watches and searches this connection started; closed with it. */
  readonly scope: ConnectionScope;
  /** Receive `channel`'s notifications from now on (idempotent). */
  follow(channel: ThreadChannel): void;
  /** Stop receiving `channel`'s notifications (its turns go on). */
  unfollow(channel: ThreadChannel): void;
  /** Whether this client unsubscribed from thread `threadId` and has not followed it since. */
  hasLeft(threadId: string): boolean;
}

export interface HandlerContext {
  runtime: AppServerRuntime;
  session: SessionHandle;
  /** Run `action` once the reply is sent. */
  after(action: () => void): void;
  /** The request's trace context (Codex's `trace` envelope): a turn it starts joins that trace. */
  trace?: TraceCarrier | undefined;
}
