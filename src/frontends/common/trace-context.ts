/**
 * A caller's W3C trace context, from an HTTP request's `traceparent` / `tracestate` headers or an
 * MCP request's `_meta`. A malformed one is dropped, never refused: as the Trace Context spec has
 * it, a bad trace context never fails the request it came with (the turn starts its own trace).
 */
import type { TraceCarrier } from "../../protocol/telemetry.js";

/** version-traceid-parentid-flags; all-zero ids are invalid, and version ff is reserved. */
const TRACEPARENT = /^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}(-.*)?$/;

export function traceCarrier(traceparent: unknown, tracestate?: unknown): TraceCarrier | undefined {
  // Repeated traceparent headers are as good as none (the spec); repeated tracestate ones join.
  const parent = typeof traceparent === "string" ? traceparent.trim().toLowerCase() : undefined;
  if (!parent || !TRACEPARENT.test(parent)) return undefined;
  const state = (
    Array.isArray(tracestate)
      ? tracestate.filter((part) => typeof part === "string").join(",")
      : typeof tracestate === "string"
        ? tracestate
        : ""
  ).trim();
  return state ? { traceparent: parent, tracestate: state } : { traceparent: parent };
}

/** The trace context of a header map (node's IncomingHttpHeaders, or a fetch Headers' entries). */
export function traceCarrierOfHeaders(
  headers: Record<string, string | string[] | undefined>,
): TraceCarrier | undefined {
  return traceCarrier(headers.traceparent, headers.tracestate);
}
