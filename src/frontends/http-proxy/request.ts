/** What the route handlers share: the proxy's options and the checked request body. */
import type { Context } from "hono";
import type { z } from "zod";
import type { Config } from "../../config/load.js";
import type { TraceCarrier } from "../../protocol/telemetry.js";
import type { LateConnections, Readiness } from "../common/health.js";
import { traceCarrier } from "../common/trace-context.js";
import { ApiError, fromZod } from "./errors.js";
import type { ConcurrencyLimit } from "./guards.js";
import type { TurnOptions } from "./turns.js";

export interface ProxyOptions {
  config: Config;
  turns: TurnOptions;
  limit: ConcurrencyLimit;
  /** The interface the server listens on (decides which Host headers are accepted). */
  host: string;
  apiKey?: string | undefined;
  maxBodyBytes: number;
  /** How long an Idempotency-Key and its answer are kept (ms). */
  idempotencyTtlMs: number;
  quietAgentWork: boolean;
  /** Whether /readyz says ready (200) or draining (503); always ready when absent. */
  readiness?: Readiness;
  /** Connections accepted while draining: anything but a probe on them is a 503. */
  lateConnections?: LateConnections;
  /** Where the per-request log lines go (default stderr). */
  log?: (line: string) => void;
}

/** The request body as JSON checked by `schema`; a 400 in OpenAI's shape otherwise. */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw ApiError.invalid(
      "We could not parse the JSON body of your request. The body must be a JSON object.",
      null,
      "invalid_json",
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw ApiError.invalid("The request body must be a JSON object.", null, "invalid_json");
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw fromZod(parsed.error);
  return parsed.data;
}

/** The request's W3C trace context (`traceparent`, `tracestate` headers), when it is well formed. */
export function requestTrace(c: Context): TraceCarrier | undefined {
  return traceCarrier(c.req.header("traceparent"), c.req.header("tracestate"));
}
