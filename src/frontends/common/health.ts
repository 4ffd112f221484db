/**
 * Health probes of a network listener, for a load balancer or an orchestrator: `GET /healthz`
 * is 200 while the process serves; `GET /readyz` is 200 while it takes new work and 503 once it
 * drains (after SIGINT/SIGTERM). They say nothing about any client, so they need no key.
 * A draining server keeps listening until its work is done, so the probe is answered rather
 * than refused (LateConnections).
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface Readiness {
  draining: boolean;
}

/** The answer to a probe (`GET /healthz` or `GET /readyz`), or null for any other request. */
export function probeAnswer(
  method: string | undefined,
  url: string | undefined,
  readiness: Readiness,
): { status: 200 | 503; text: string } | null {
  if (method !== "GET") return null;
  const path = new URL(url ?? "/", "http://local").pathname;
  if (path === "/healthz") return { status: 200, text: "ok\n" };
  if (path === "/readyz")
    return readiness.draining ? { status: 503, text: "draining\n" } : { status: 200, text: "ready\n" };
  return null;
}

/** Answers a probe and returns true, or returns false for any other request. */
export function answerProbe(req: IncomingMessage, res: ServerResponse, readiness: Readiness): boolean {
  const answer = probeAnswer(req.method, req.url, readiness);
  if (!answer) return false;
  res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.text);
  return true;
}

/**
 * The connections a server accepted once draining had begun. A draining server keeps listening
 * until its work is done, so a probe is answered (/readyz 503) rather than refused; such a
 * connection gets probes and 503 for anything else, while connections from before are served
 * as the server's own drain decides.
 */
export class LateConnections {
  private readonly sockets = new WeakSet<Socket>();
  constructor(private readonly readiness: Readiness) {}

  /** Starts noting `server`'s connections accepted while draining. */
  watch(server: Server): void {
    server.on("connection", (socket: Socket) => {
      if (this.readiness.draining) this.sockets.add(socket);
    });
  }

  has(socket: Socket | undefined): boolean {
    return socket !== undefined && this.sockets.has(socket);
  }
}
