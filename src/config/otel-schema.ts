/** `[otel]` in config.toml: Codex's keys and shapes (otel.ts reads them into settings). */
import { z } from "zod";

export const otelTlsSchema = z.looseObject({
  "ca-certificate": z.string().nullish(),
  "client-certificate": z.string().nullish(),
  "client-private-key": z.string().nullish(),
});

const headersSchema = z.record(z.string(), z.string());

export const otelExporterSchema = z.union([
  z.enum(["none", "statsig"]),
  z.strictObject({
    "otlp-http": z.looseObject({
      endpoint: z.string().min(1),
      headers: headersSchema.optional(),
      protocol: z.enum(["binary", "json"]),
      tls: otelTlsSchema.nullish(),
    }),
  }),
  z.strictObject({
    "otlp-grpc": z.looseObject({
      endpoint: z.string().min(1),
      headers: headersSchema.optional(),
      tls: otelTlsSchema.nullish(),
    }),
  }),
]);

export const otelConfigSchema = z.looseObject({
  /** The `env` resource attribute (and `deployment.environment.name`); default "dev". */
  environment: z.string().min(1).optional(),
  /** Logs (Codex's `codex.*` events). */
  exporter: otelExporterSchema.optional(),
  trace_exporter: otelExporterSchema.optional(),
  metrics_exporter: otelExporterSchema.optional(),
  /** Export the prompt's text in `codex.user_prompt` (default: `[REDACTED]`, its length kept). */
  log_user_prompt: z.boolean().optional(),
  /** Export the agent's final message (`codex.agent_response`, the turn span's output). */
  log_agent_responses: z.boolean().optional(),
  log_guardian_assessments: z.boolean().optional(),
  /** One `codex.sse_event` record per text/reasoning delta too (default: deltas are counted, not logged). */
  log_sse_deltas: z.boolean().optional(),
  /** Attributes added to every span. */
  span_attributes: z.record(z.string(), z.string()).optional(),
  /** `key = { field = "value" }`: members upserted into the W3C tracestate (`key=field:value;...`). */
  tracestate: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  /** A command whose output (a JSON object of header names to values) is sent with every export. */
  headers_helper: z.string().min(1).optional(),
  headers_helper_refresh_interval_ms: z.number().int().min(1).optional(),
  tool_result: z.looseObject({ max_bytes: z.number().int().min(0) }).optional(),
});

export type OtelConfigFile = z.infer<typeof otelConfigSchema>;
export type OtelExporterFile = z.infer<typeof otelExporterSchema>;
export type OtelTlsFile = z.infer<typeof otelTlsSchema>;
