/**
 * The proxy's HTTP app (hono): an OpenAI-compatible endpoint with the agent behind it.
 * Responsibilities: guards (Host/Origin, body type, bearer key, body size, concurrency), routes
 * (/v1/models, the /healthz and /readyz probes, /v1/responses and its stored responses, /v1/chat/completions), one stderr log line per request
 * (method, path, status, ms), and every error in OpenAI's shape.
 */

import type { Socket } from "node:net";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Config } from "../../config/load.js";
import { probeAnswer } from "../common/health.js";
import { PeerGuard } from "../common/http-guard.js";
import { visibleLine } from "../common/terminal-text.js";
import { BackgroundTurns, cancelResponse } from "./background.js";
import { handleChat } from "./chat.js";
import { ApiError, fromUnexpected } from "./errors.js";
import { allowedHostnames, checkBearer, checkBodyType, checkHost, refuseSandboxedCaller } from "./guards.js";
import { idempotent } from "./idempotency.js";
import type { ProxyOptions } from "./request.js";
import { handleResponses } from "./responses.js";
import { deleteResponse, getResponse, listInputItems } from "./responses-stored.js";

export type { ProxyOptions } from "./request.js";

export function createApp(options: ProxyOptions): Hono {
  const app = new Hono();
  const allowed = allowedHostnames(options.host);
  const anyHost = options.host === "0.0.0.0" || options.host === "::";
  const log = options.log ?? batchedStderr();
  const peers = new PeerGuard();

  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    const ms = (performance.now() - started).toFixed(1);
    // The path is the client's, decoded (`%1B` is ESC): its controls are shown (terminal-text.ts).
    log(`tscodex proxy: ${c.req.method} ${visibleLine(c.req.path)} ${c.res.status} ${ms}ms`);
  });
  app.use(async (c, next) => {
    const headers = c.req.header();
    checkHost(headers, allowed, anyHost);
    // Probes need no key (they say nothing about any client), but a foreign Host still gets 403.
    const probe = probeAnswer(c.req.method, c.req.path, options.readiness ?? { draining: false });
    if (probe) return c.text(probe.text, probe.status);
    const incoming = (c.env as { incoming?: { socket?: Socket } } | undefined)?.incoming;
    if (options.lateConnections?.has(incoming?.socket)) {
      c.header("Connection", "close");
      throw new ApiError(503, "The server is shutting down.", "server_error", null, "server_shutting_down");
    }
    checkBodyType(headers);
    if (options.apiKey) checkBearer(headers, options.apiKey);
    else await refuseSandboxedCaller(c.env as { incoming?: { socket?: Socket } } | undefined, peers);
    await next();
  });
  app.use(
    bodyLimit({
      maxSize: options.maxBodyBytes,
      onError: () => {
        throw new ApiError(
          413,
          `Request body too large: the limit is ${options.maxBodyBytes} bytes.`,
          "invalid_request_error",
          null,
          "request_too_large",
        );
      },
    }),
  );

  const background = new BackgroundTurns();
  app.get("/v1/models", (c) => c.json(modelList(options.config)));
  app.post("/v1/responses", (c) =>
    idempotent(c, options, "responses", (keyed) => handleResponses(c, options, background, keyed)),
  );
  app.post("/v1/responses/:id/cancel", (c) => cancelResponse(c, options, background));
  app.get("/v1/responses/:id", (c) => getResponse(c, options, background));
  app.get("/v1/responses/:id/input_items", (c) => listInputItems(c, options));
  app.delete("/v1/responses/:id", (c) => deleteResponse(c, options, background));
  app.post("/v1/chat/completions", (c) =>
    idempotent(c, options, "chat/completions", (keyed) => handleChat(c, options, keyed)),
  );

  app.notFound((c) => {
    const error = new ApiError(
      404,
      `Unknown route: ${c.req.method} ${c.req.path}`,
      "invalid_request_error",
      null,
      "unknown_url",
    );
    return c.json(error.body, 404);
  });
  app.onError((error, c) => {
    const apiError = error instanceof ApiError ? error : fromUnexpected(error);
    // A store outage is worth a retry (on this process or another sharing the store).
    if (apiError.status === 503) c.header("Retry-After", "1");
    if (apiError.status === 401) c.header("WWW-Authenticate", 'Bearer realm="tscodex-proxy"');
    return c.json(apiError.body, apiError.status);
  });
  return app;
}

/**
 * Log lines to stderr, written once per event-loop turn: a write to a pipe is synchronous, and
 * one per request cost measurable CPU under load (bench/proxy.ts).
 */
function batchedStderr(): (line: string) => void {
  let pending: string[] = [];
  return (line) => {
    pending.push(line);
    if (pending.length > 1) return;
    setImmediate(() => {
      const text = `${pending.join("\n")}\n`;
      pending = [];
      process.stderr.write(text);
    });
  };
}

/** The configured model, then each profile's, in OpenAI's list shape. */
function modelList(config: Config) {
  const ids = [config.model];
  for (const profile of Object.values(config.profiles)) {
    const model = (profile as { model?: unknown }).model;
    if (typeof model === "string" && !ids.includes(model)) ids.push(model);
  }
  return {
    object: "list",
    data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "tscodex" })),
  };
}
