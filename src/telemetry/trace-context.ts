/**
 * W3C trace context as text: reading a caller's `traceparent`, writing ours, and upserting the
 * configured `[otel] tracestate` members. Pure string work, so it loads no OpenTelemetry code.
 */
import type { TraceCarrier } from "../protocol/telemetry.js";

export interface ParsedTraceparent {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A `traceparent` header's ids, or null when it is malformed or all-zero (W3C says: ignore it). */
export function parseTraceparent(value: string): ParsedTraceparent | null {
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!match || match[1] === "ff") return null;
  const [, , traceId = "", spanId = "", flags = "00"] = match;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

export function formatTraceparent(traceId: string, spanId: string, traceFlags: number): string {
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, "0")}`;
}

/** `{ key: { field: value } }` as tracestate members `key=field:value;field:value`. */
export function tracestateMembers(config: Record<string, Record<string, string>>): [string, string][] {
  return Object.entries(config).map(([key, fields]) => [
    key,
    Object.entries(fields)
      .map(([field, value]) => `${field}:${value}`)
      .join(";"),
  ]);
}

/**
 * `existing` with `members` upserted: W3C puts a modified member first, and a key appears once.
 * The result keeps at most 32 members, as the spec allows.
 */
export function upsertTracestate(existing: string | undefined, members: [string, string][]): string {
  const ours = new Set(members.map(([key]) => key));
  const kept = (existing ?? "")
    .split(",")
    .map((member) => member.trim())
    .filter((member) => member.includes("=") && !ours.has(member.slice(0, member.indexOf("="))));
  return [...members.map(([key, value]) => `${key}=${value}`), ...kept].slice(0, 32).join(",");
}

/** A carrier for a span context, `tracestate` only when non-empty. */
export function carrierOf(
  traceId: string,
  spanId: string,
  traceFlags: number,
  tracestate: string,
): TraceCarrier {
  const carrier: TraceCarrier = { traceparent: formatTraceparent(traceId, spanId, traceFlags) };
  if (tracestate) carrier.tracestate = tracestate;
  return carrier;
}
