/**
 * A caller's W3C trace context, from an HTTP request's `traceparent` / `tracestate` headers, an
 * MCP request's `_meta` or the app-server's `trace` envelope. A malformed one is dropped, never
 * refused: as the Trace Context spec has it, a bad trace context never fails the request it came
 * with (the turn starts its own trace). The parsing is telemetry's (pure text, no OpenTelemetry).
 */
import type { TraceCarrier } from "../../protocol/telemetry.js";
import { parseTraceparent } from "../../telemetry/trace-context.js";

export function traceCarrier(traceparent: unknown, tracestate?: unknown): TraceCarrier | undefined {
  // Repeated traceparent headers are as good as none (the spec); repeated tracestate ones join.
  if (typeof traceparent !== "string" || !parseTraceparent(traceparent)) return undefined;
  const parent = traceparent.trim().toLowerCase();
  const state = (
    Array.isArray(tracestate)
      ? tracestate.filter((part) => typeof part === "string").join(",")
      : typeof tracestate === "string"
        ? tracestate
        : ""
  ).trim();
  return state ? { traceparent: parent, tracestate: state } : { traceparent: parent };
}
