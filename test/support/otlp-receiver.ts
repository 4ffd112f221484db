/**
 * An OTLP collector for tests: HTTP (protobuf or JSON, any path) and gRPC, both on 127.0.0.1
 * with ephemeral ports, decoding what arrives with the official OTLP messages (otlp-protos) into
 * plain, easy-to-assert views. Ids come out as lowercase hex and numbers as numbers, whichever
 * encoding carried them (hex or base64 ids, int64 as string, number or Long).
 *
 * ```ts
 * const receiver = await startOtlpReceiver();
 * // [otel] exporter = { otlp-http = { endpoint = receiver.httpUrl("/v1/logs"), protocol = "binary" } }
 * // trace_exporter = { otlp-grpc = { endpoint = receiver.grpcUrl } }
 * await receiver.waitFor((r) => r.spans().some((s) => s.name.startsWith("invoke_agent")));
 * expect(receiver.logs().map((l) => l.eventName)).toContain("codex.user_prompt");
 * await receiver.close();
 * ```
 *
 * Failure modes for the unhappy paths: `setMode("error")` answers HTTP 503 / gRPC UNAVAILABLE,
 * `setMode("stall")` accepts and reads each request but never answers; `closedPort()` gives a port
 * nothing listens on (connection refused).
 *
 * HTTP requests are told apart by path (the last of `traces`, `logs`, `metrics` in it; see
 * `signalOfPath`), since the three protobuf requests share one wire shape. gRPC requests are
 * told apart by their service.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createRequire } from "node:module";
import type { AddressInfo, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import * as grpc from "@grpc/grpc-js";

export type Signal = "traces" | "logs" | "metrics";
export type ReceiverMode = "ok" | "error" | "stall";

/** One request as it arrived. */
export interface ReceivedRequest {
  transport: "http" | "grpc";
  signal: Signal | "unknown";
  /** The HTTP path, or the gRPC method path (`/opentelemetry.proto.collector.trace.v1.TraceService/Export`). */
  path: string;
  /** Header names lowercased; gRPC metadata as headers. */
  headers: Record<string, string>;
  /** `application/x-protobuf`, `application/json`, `application/grpc`. */
  contentType: string;
  /** The decoded request, its ids and numbers normalised (see the views); undefined if undecodable. */
  body: OtlpBody | undefined;
  /** What the receiver answered with (`stall`: never answered). */
  mode: ReceiverMode;
  /** With `tls.requireClientCertificate`: the client certificate's subject CN (HTTP only). */
  clientCertificate?: string;
}

/** TLS for both servers (PEM text): they then serve https:// and gRPC over TLS. */
export interface ReceiverTls {
  key: string;
  cert: string;
  /** The CA client certificates must chain to; with it, a client certificate is required. */
  clientCa?: string;
}

export interface ReceiverOptions {
  tls?: ReceiverTls;
}

export type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

export interface ReceivedSpan {
  name: string;
  /** 1 INTERNAL, 2 SERVER, 3 CLIENT, 4 PRODUCER, 5 CONSUMER. */
  kind: number;
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  traceState: string;
  attributes: Record<string, Value>;
  events: { name: string; attributes: Record<string, Value> }[];
  /** code: 0 UNSET, 1 OK, 2 ERROR. */
  status: { code: number; message: string };
  resource: Record<string, Value>;
  scope: { name: string; version: string };
  transport: "http" | "grpc";
}

export interface ReceivedLog {
  /** The record's `eventName` (OTLP/JSON, gRPC-decoded: see logsOf), else its `event.name` attribute. */
  eventName: string;
  attributes: Record<string, Value>;
  /** "" when the record carries no trace context. */
  traceId: string;
  spanId: string;
  severityNumber: number;
  severityText: string;
  resource: Record<string, Value>;
  scope: { name: string; version: string };
  transport: "http" | "grpc";
}

export interface ReceivedPoint {
  attributes: Record<string, Value>;
  /** Sum and gauge points. */
  value?: number;
  /** Histogram points. */
  count?: number;
  sum?: number;
  min?: number;
  max?: number;
  bucketCounts?: number[];
  explicitBounds?: number[];
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  kind: "sum" | "histogram" | "gauge" | "other";
  temporality: "delta" | "cumulative" | "unspecified";
  monotonic: boolean;
  points: ReceivedPoint[];
  resource: Record<string, Value>;
  scope: { name: string; version: string };
  transport: "http" | "grpc";
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT` + path (https:// with TLS): an otlp-http endpoint (any path is accepted). */
  httpUrl(path?: string): string;
  /** `http://127.0.0.1:PORT` (https:// with TLS) of the gRPC server: an otlp-grpc endpoint. */
  readonly grpcUrl: string;
  readonly httpPort: number;
  readonly grpcPort: number;
  requests(): ReceivedRequest[];
  spans(): ReceivedSpan[];
  logs(): ReceivedLog[];
  /** Every metric of every request, in arrival order (delta exports repeat a name per export). */
  metrics(): ReceivedMetric[];
  /** Resolves once `predicate` holds (checked now and at each arrival); rejects after `timeoutMs`. */
  waitFor(predicate: (receiver: OtlpReceiver) => boolean, timeoutMs?: number): Promise<void>;
  /** How later requests are answered. */
  setMode(mode: ReceiverMode): void;
  /** Forget what arrived so far. */
  clear(): void;
  /** Stops both servers, dropping stalled connections. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The official messages

interface Message {
  encode(message: unknown): { finish(): Uint8Array };
  decode(bytes: Uint8Array): unknown;
}
interface ServiceMessages {
  request: Message;
  response: Message;
  path: string;
}

const require = createRequire(import.meta.url);
// biome-ignore lint/suspicious/noExplicitAny: the generated protobufjs root is untyped here
const root: any = require("otlp-protos/build/src/generated/root.js");
const collector = root.opentelemetry.proto.collector;

const SERVICES: Record<Signal, ServiceMessages> = {
  traces: {
    request: collector.trace.v1.ExportTraceServiceRequest,
    response: collector.trace.v1.ExportTraceServiceResponse,
    path: "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
  },
  logs: {
    request: collector.logs.v1.ExportLogsServiceRequest,
    response: collector.logs.v1.ExportLogsServiceResponse,
    path: "/opentelemetry.proto.collector.logs.v1.LogsService/Export",
  },
  metrics: {
    request: collector.metrics.v1.ExportMetricsServiceRequest,
    response: collector.metrics.v1.ExportMetricsServiceResponse,
    path: "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
  },
};

/** The signal an HTTP path carries: the last of traces/logs/metrics named in it. */
export function signalOfPath(path: string): Signal | "unknown" {
  const matches = path.toLowerCase().match(/traces?|logs?|metrics?/g);
  const last = matches?.at(-1);
  if (!last) return "unknown";
  return last.startsWith("trace") ? "traces" : last.startsWith("log") ? "logs" : "metrics";
}

/** A port on 127.0.0.1 with nothing listening (bound, then released): connections are refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

// ---------------------------------------------------------------------------------------------
// Normalising: both encodings into one shape

// biome-ignore lint/suspicious/noExplicitAny: decoded OTLP (protobufjs objects or parsed JSON) is walked structurally
type Raw = any;
export type OtlpBody = Raw;

function hexId(value: Raw): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Uint8Array) return Buffer.from(value).toString("hex");
  const text = String(value);
  if (text === "") return "";
  // OTLP/JSON says hex; some encoders send base64 (the proto3 JSON default for bytes).
  if (/^[0-9a-f]+$/i.test(text) && (text.length === 32 || text.length === 16)) return text.toLowerCase();
  return Buffer.from(text, "base64").toString("hex");
}

function num(value: Raw): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "number") return value;
  if (typeof value === "string") return Number(value);
  if (typeof value === "object" && "low" in value && "high" in value) return Number(value.toString());
  return Number(value);
}

function anyValue(value: Raw): Value {
  if (value === null || value === undefined) return null;
  if (value.stringValue !== null && value.stringValue !== undefined) return String(value.stringValue);
  if (value.boolValue !== null && value.boolValue !== undefined) return Boolean(value.boolValue);
  if (value.intValue !== null && value.intValue !== undefined) return num(value.intValue) ?? null;
  if (value.doubleValue !== null && value.doubleValue !== undefined) return num(value.doubleValue) ?? null;
  if (value.arrayValue) return ((value.arrayValue.values ?? []) as Raw[]).map(anyValue);
  if (value.kvlistValue) return attributes(value.kvlistValue.values);
  if (value.bytesValue) return hexId(value.bytesValue);
  return null;
}

function attributes(list: Raw): Record<string, Value> {
  const result: Record<string, Value> = {};
  for (const entry of (list ?? []) as Raw[]) result[String(entry.key)] = anyValue(entry.value);
  return result;
}

function scopeOf(scope: Raw): { name: string; version: string } {
  return { name: String(scope?.name ?? ""), version: String(scope?.version ?? "") };
}

function decodeBody(signal: Signal | "unknown", contentType: string, body: Buffer): OtlpBody | undefined {
  try {
    if (contentType.includes("json")) return JSON.parse(body.toString("utf8"));
    if (signal === "unknown") return undefined;
    return SERVICES[signal].request.decode(body);
  } catch {
    return undefined;
  }
}

const TEMPORALITY = { 1: "delta", 2: "cumulative" } as const;

function spansOf(request: ReceivedRequest): ReceivedSpan[] {
  return ((request.body?.resourceSpans ?? []) as Raw[]).flatMap((resourceSpans) => {
    const resource = attributes(resourceSpans.resource?.attributes);
    return ((resourceSpans.scopeSpans ?? []) as Raw[]).flatMap((scopeSpans) =>
      ((scopeSpans.spans ?? []) as Raw[]).map((span) => ({
        name: String(span.name ?? ""),
        kind: num(span.kind) ?? 0,
        traceId: hexId(span.traceId),
        spanId: hexId(span.spanId),
        parentSpanId: hexId(span.parentSpanId),
        traceState: String(span.traceState ?? ""),
        attributes: attributes(span.attributes),
        events: ((span.events ?? []) as Raw[]).map((event) => ({
          name: String(event.name ?? ""),
          attributes: attributes(event.attributes),
        })),
        status: { code: num(span.status?.code) ?? 0, message: String(span.status?.message ?? "") },
        resource,
        scope: scopeOf(scopeSpans.scope),
        transport: request.transport,
      })),
    );
  });
}

function logsOf(request: ReceivedRequest): ReceivedLog[] {
  return ((request.body?.resourceLogs ?? []) as Raw[]).flatMap((resourceLogs) => {
    const resource = attributes(resourceLogs.resource?.attributes);
    return ((resourceLogs.scopeLogs ?? []) as Raw[]).flatMap((scopeLogs) =>
      ((scopeLogs.logRecords ?? []) as Raw[]).map((record) => ({
        // otlp-protos (0.57) predates LogRecord.event_name, so protobuf bodies lose it: fall back to
        // the `event.name` attribute, which Codex's records (and ours) always carry.
        eventName: String(record.eventName || (attributes(record.attributes)["event.name"] ?? "")),
        attributes: attributes(record.attributes),
        traceId: hexId(record.traceId),
        spanId: hexId(record.spanId),
        severityNumber: num(record.severityNumber) ?? 0,
        severityText: String(record.severityText ?? ""),
        resource,
        scope: scopeOf(scopeLogs.scope),
        transport: request.transport,
      })),
    );
  });
}

function pointOf(point: Raw, histogram: boolean): ReceivedPoint {
  const result: ReceivedPoint = { attributes: attributes(point.attributes) };
  if (!histogram) {
    const value = num(point.asInt) ?? num(point.asDouble);
    if (value !== undefined) result.value = value;
    return result;
  }
  const set = (key: "count" | "sum" | "min" | "max", raw: Raw) => {
    const value = num(raw);
    if (value !== undefined) result[key] = value;
  };
  set("count", point.count);
  set("sum", point.sum);
  set("min", point.min);
  set("max", point.max);
  result.bucketCounts = ((point.bucketCounts ?? []) as Raw[]).map((count) => num(count) ?? 0);
  result.explicitBounds = ((point.explicitBounds ?? []) as Raw[]).map((bound) => num(bound) ?? 0);
  return result;
}

function metricsOf(request: ReceivedRequest): ReceivedMetric[] {
  return ((request.body?.resourceMetrics ?? []) as Raw[]).flatMap((resourceMetrics) => {
    const resource = attributes(resourceMetrics.resource?.attributes);
    return ((resourceMetrics.scopeMetrics ?? []) as Raw[]).flatMap((scopeMetrics) =>
      ((scopeMetrics.metrics ?? []) as Raw[]).map((metric) => {
        const data = metric.sum ?? metric.histogram ?? metric.gauge;
        const kind = metric.sum ? "sum" : metric.histogram ? "histogram" : metric.gauge ? "gauge" : "other";
        const temporality = TEMPORALITY[num(data?.aggregationTemporality) as 1 | 2] ?? "unspecified";
        return {
          name: String(metric.name ?? ""),
          unit: String(metric.unit ?? ""),
          kind,
          temporality,
          monotonic: Boolean(data?.isMonotonic),
          points: ((data?.dataPoints ?? []) as Raw[]).map((point) => pointOf(point, kind === "histogram")),
          resource,
          scope: scopeOf(scopeMetrics.scope),
          transport: request.transport,
        } satisfies ReceivedMetric;
      }),
    );
  });
}

// ---------------------------------------------------------------------------------------------
// The servers

export async function startOtlpReceiver(options: ReceiverOptions = {}): Promise<OtlpReceiver> {
  const tls = options.tls;
  const scheme = tls ? "https" : "http";
  const received: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  let mode: ReceiverMode = "ok";
  const sockets = new Set<Socket>();

  const record = (request: ReceivedRequest) => {
    received.push(request);
    for (const waiter of [...waiters]) waiter();
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      const signal = signalOfPath(path);
      const contentType = String(req.headers["content-type"] ?? "");
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
      const answer = mode;
      const received: ReceivedRequest = {
        transport: "http",
        signal,
        path,
        headers,
        contentType,
        body: decodeBody(signal, contentType, Buffer.concat(chunks)),
        mode: answer,
      };
      const peer = tls?.clientCa ? (req.socket as TLSSocket).getPeerCertificate?.() : undefined;
      if (peer?.subject?.CN) received.clientCertificate = String(peer.subject.CN);
      record(received);
      if (answer === "stall") return;
      if (answer === "error") {
        res.writeHead(503, { "content-type": "text/plain" }).end("otlp receiver: error mode");
        return;
      }
      const json = contentType.includes("json");
      res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      res.end(json ? "{}" : "");
    });
  };
  const http: Server = tls
    ? createHttpsServer(
        {
          key: tls.key,
          cert: tls.cert,
          ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true } : {}),
        },
        handle,
      )
    : createServer(handle);
  http.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  const httpPort = (http.address() as AddressInfo).port;

  const grpcServer = new grpc.Server();
  for (const signal of ["traces", "logs", "metrics"] as const) {
    const { request, response, path } = SERVICES[signal];
    const definition: grpc.ServiceDefinition = {
      Export: {
        path,
        requestStream: false,
        responseStream: false,
        requestSerialize: (message: unknown) => Buffer.from(request.encode(message).finish()),
        requestDeserialize: (bytes: Buffer) => request.decode(bytes),
        responseSerialize: (message: unknown) => Buffer.from(response.encode(message).finish()),
        responseDeserialize: (bytes: Buffer) => response.decode(bytes),
      },
    };
    grpcServer.addService(definition, {
      Export: (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(call.metadata.getMap())) headers[name] = String(value);
        const answer = mode;
        record({
          transport: "grpc",
          signal,
          path,
          headers,
          contentType: "application/grpc",
          body: call.request,
          mode: answer,
        });
        if (answer === "stall") return;
        if (answer === "error")
          callback({ code: grpc.status.UNAVAILABLE, details: "otlp receiver: error mode" });
        else callback(null, {});
      },
    });
  }
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync("127.0.0.1:0", grpcCredentials(tls), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );

  const receiver: OtlpReceiver = {
    httpUrl: (path = "/") => `${scheme}://127.0.0.1:${httpPort}${path.startsWith("/") ? path : `/${path}`}`,
    grpcUrl: `${scheme}://127.0.0.1:${grpcPort}`,
    httpPort,
    grpcPort,
    requests: () => [...received],
    spans: () => received.flatMap(spansOf),
    logs: () => received.flatMap(logsOf),
    metrics: () => received.flatMap(metricsOf),
    waitFor(predicate, timeoutMs = 10_000) {
      if (predicate(receiver)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(receiver)) return;
          done();
          resolve();
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(
              `otlp receiver: condition not met within ${timeoutMs} ms (${received.length} requests)`,
            ),
          );
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    setMode(next) {
      mode = next;
    },
    clear() {
      received.length = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      grpcServer.forceShutdown();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  return receiver;
}

function grpcCredentials(tls: ReceiverTls | undefined): grpc.ServerCredentials {
  if (!tls) return grpc.ServerCredentials.createInsecure();
  return grpc.ServerCredentials.createSsl(
    tls.clientCa ? Buffer.from(tls.clientCa) : null,
    [{ private_key: Buffer.from(tls.key), cert_chain: Buffer.from(tls.cert) }],
    Boolean(tls.clientCa),
  );
}
