/**
 * Sampling: ParentBased(AlwaysOn), so a caller's unsampled trace stays unsampled. It is also
 * where the configured `[otel] tracestate` members enter each span's trace state (the SDK takes
 * a sampler's trace state as the new span's), upserted over what the parent carried.
 */
import type * as Api from "@opentelemetry/api";
import type { Attributes, Context, Link, SpanKind } from "@opentelemetry/api";
import type { Sampler, SamplingResult } from "@opentelemetry/sdk-trace";
import { upsertTracestate } from "./trace-context.js";

export function tracestateSampler(api: typeof Api, inner: Sampler, members: [string, string][]): Sampler {
  return {
    shouldSample(
      context: Context,
      traceId: string,
      name: string,
      kind: SpanKind,
      attributes: Attributes,
      links: Link[],
    ): SamplingResult {
      const result = inner.shouldSample(context, traceId, name, kind, attributes, links);
      if (members.length === 0) return result;
      const parent = api.trace.getSpanContext(context)?.traceState?.serialize();
      return { ...result, traceState: api.createTraceState(upsertTracestate(parent, members)) };
    },
    toString: () => `TracestateSampler{${inner.toString()}}`,
  };
}
