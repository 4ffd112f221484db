/**
 * Health probes of a network listener, for a load balancer or an orchestrator: `GET /healthz`
 * is 200 while the process serves; `GET /readyz` is 200 while it takes new work and 503 once it
 * drains (after SIGINT/SIGTERM). They say nothing about any client, so they need no key.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export interface Readiness {
  draining: boolean;
}

/** Answers a probe and returns true, or returns false for any other request. */
export function answerProbe(req: IncomingMessage, res: ServerResponse, readiness: Readiness): boolean {
  if (req.method !== "GET") return false;
  const path = new URL(req.url ?? "/", "http://local").pathname;
  if (path === "/healthz") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
    return true;
  }
  if (path === "/readyz") {
    const [status, text] = readiness.draining ? [503, "draining\n"] : [200, "ready\n"];
    res.writeHead(status, { "content-type": "text/plain" }).end(text);
    return true;
  }
  return false;
}
