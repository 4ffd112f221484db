/**
 * `tscodex app-server generate-json-schema --out DIR`: our protocol as JSON Schema (draft-07),
 * generated from the same zod schemas that validate messages, in Codex's layout and type names:
 * ClientRequest.json, ServerNotification.json, ServerRequest.json, ClientNotification.json, the
 * server-request params/responses at the top level, v1/Initialize*.json, and every v2 method's
 * params, response and notification under v2/. Each file is self-contained (`definitions`).
 * What clients send is described as accepted (`io: input`), what we send as sent (`io: output`).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { errorMessage } from "../../../util/errors.js";
import { clientRequests } from "./client-requests.js";
import { serverNotifications, serverRequests } from "./server-messages.js";

const requestId = z.union([z.string(), z.number().int()]);
/** We always send it; clients may leave it out (Codex's own clients do). */
const sentVersion = z.literal("2.0");
const acceptedVersion = sentVersion.optional();

type Io = "input" | "output";

function toSchema(schema: z.ZodType, title: string, io: Io): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, { target: "draft-7", io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  const { $schema, ...rest } = generated;
  return { $schema, title, ...rest };
}

/** Every file: path relative to the output directory → schema. */
export function protocolSchemas(): Map<string, Record<string, unknown>> {
  const files = new Map<string, Record<string, unknown>>();
  const add = (path: string, schema: z.ZodType, io: Io): void => {
    const title = path.replace(/^.*\//, "").replace(/\.json$/, "");
    files.set(path, toSchema(schema, title, io));
  };

  const requests: z.ZodType[] = [];
  for (const [method, spec] of Object.entries(clientRequests)) {
    const params = spec.params();
    if (spec.paramsName) add(`${spec.dir}/${spec.paramsName}.json`, params, "input");
    add(`${spec.dir}/${spec.resultName}.json`, spec.result(), "output");
    requests.push(z.object({ jsonrpc: acceptedVersion, id: requestId, method: z.literal(method), params }));
  }
  add("ClientRequest.json", z.union(requests), "input");
  add(
    "ClientNotification.json",
    z.object({ jsonrpc: acceptedVersion, method: z.literal("initialized"), params: z.unknown().optional() }),
    "input",
  );

  const notifications: z.ZodType[] = [];
  for (const [method, spec] of Object.entries(serverNotifications)) {
    add(`${"dir" in spec ? spec.dir : "v2"}/${spec.name}.json`, spec.params, "output");
    notifications.push(z.object({ jsonrpc: sentVersion, method: z.literal(method), params: spec.params }));
  }
  add("ServerNotification.json", z.union(notifications), "output");

  const serverAsks: z.ZodType[] = [];
  for (const [method, spec] of Object.entries(serverRequests)) {
    add(`${spec.paramsName}.json`, spec.params, "output");
    add(`${spec.resultName}.json`, spec.result, "input");
    serverAsks.push(
      z.object({ jsonrpc: sentVersion, id: requestId, method: z.literal(method), params: spec.params }),
    );
  }
  add("ServerRequest.json", z.union(serverAsks), "output");
  add("RequestId.json", requestId, "output");
  return files;
}

/** Write every schema under `outDir`; returns the paths written. */
export async function writeProtocolSchemas(outDir: string): Promise<string[]> {
  const written: string[] = [];
  for (const [relative, schema] of protocolSchemas()) {
    const path = join(outDir, relative);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${JSON.stringify(schema, null, 2)}\n`);
    written.push(path);
  }
  return written;
}

/** The CLI action; returns the exit code. */
export async function runGenerateJsonSchema(options: { out: string }): Promise<number> {
  try {
    const written = await writeProtocolSchemas(options.out);
    process.stderr.write(`tscodex app-server: wrote ${written.length} schema files to ${options.out}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`tscodex app-server generate-json-schema: ${errorMessage(error)}\n`);
    return 1;
  }
}
