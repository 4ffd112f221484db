/**
 * config/read, config/value/write, config/batchWrite and config/mcpServer/reload over the user's
 * `$TSCODEX_HOME/config.toml`. Reads give the effective configuration (file, profile and the
 * server's -c flags) with the file as its origin; writes check `expectedVersion`, edit the file
 * (keeping its layout where they can), refuse a result that does not load (the file is put back),
 * and apply to threads opened afterwards.
 */
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { configFileSchema } from "../../../config/schema.js";
import { errorMessage } from "../../../util/errors.js";
import { readTextOrEmpty } from "../../../util/files.js";
import { applyEdits, configVersion, type KeyEdit, parseConfigText } from "../config-edit.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

/** Dotted paths of every value in `table` (tables are walked, arrays and scalars are leaves). */
function leafPaths(table: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(table).flatMap(([key, value]) =>
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date)
      ? leafPaths(value as Record<string, unknown>, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  );
}

export async function configRead(
  params: ParamsOf<"config/read">,
  context: HandlerContext,
): Promise<ResultOf<"config/read">> {
  const config = context.runtime.config;
  const text = await readTextOrEmpty(config.configPath);
  const file = text ? parseConfigText(text) : {};
  const layer = { name: { type: "user" as const, file: config.configPath }, version: configVersion(text) };
  return {
    config: context.runtime.effectiveConfig(file, config),
    origins: Object.fromEntries(leafPaths(file).map((path) => [path, layer])),
    ...(params.includeLayers ? { layers: [{ ...layer, config: file }] } : {}),
  };
}

export function configValueWrite(
  params: ParamsOf<"config/value/write">,
  context: HandlerContext,
): Promise<ResultOf<"config/value/write">> {
  const { keyPath, value, mergeStrategy } = params;
  return write([{ keyPath, value, mergeStrategy }], params, context);
}

export function configBatchWrite(
  params: ParamsOf<"config/batchWrite">,
  context: HandlerContext,
): Promise<ResultOf<"config/batchWrite">> {
  return write(params.edits, params, context);
}

/** Apply `edits` to the user's config.toml (checked, atomic, reloaded) as config/batchWrite does. */
export async function writeConfigEdits(
  edits: readonly KeyEdit[],
  context: HandlerContext,
): Promise<ResultOf<"config/value/write">> {
  return write(edits, {}, context);
}

async function write(
  edits: readonly KeyEdit[],
  target: { filePath?: string | null | undefined; expectedVersion?: string | null | undefined },
  context: HandlerContext,
): Promise<ResultOf<"config/value/write">> {
  const { runtime } = context;
  const path = runtime.config.configPath;
  if (target.filePath && resolve(target.filePath) !== path)
    throw RpcError.invalidRequest(`Invalid request: only the user config file can be written: ${path}`);
  const before = await readTextOrEmpty(path);
  const version = configVersion(before);
  if (target.expectedVersion && target.expectedVersion !== version)
    throw RpcError.invalidRequest(
      `config version conflict: expected ${target.expectedVersion}, the file is at ${version}`,
    );
  let edited: { text: string; doc: Record<string, unknown> };
  try {
    edited = applyEdits(before, edits);
  } catch (error) {
    throw RpcError.invalidParams(`Invalid request: ${errorMessage(error)}`);
  }
  const checked = configFileSchema.safeParse(edited.doc);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw RpcError.invalidParams(
      `Invalid configuration: key '${issue?.path.join(".") ?? ""}': ${issue?.message ?? "invalid value"}`,
    );
  }
  await replaceFile(path, edited.text);
  try {
    await runtime.reloadConfig();
  } catch (error) {
    await replaceFile(path, before);
    throw RpcError.invalidParams(`Invalid configuration: ${errorMessage(error)}`);
  }
  const overridden = edits.filter((edit) => runtime.overridden(edit.keyPath));
  return {
    status: overridden.length ? "okOverridden" : "ok",
    version: configVersion(edited.text),
    filePath: path,
    overriddenMetadata: overridden.length
      ? {
          message: `overridden by this server's -c flags: ${overridden.map((edit) => edit.keyPath).join(", ")}`,
          overridingLayer: { name: { type: "sessionFlags" }, version: "" },
          effectiveValue: null,
        }
      : null,
  };
}

/** Write through a temporary file and a rename, so a reader never sees half a file. */
async function replaceFile(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(temporary, text);
  await rename(temporary, path);
}

export async function mcpServerReload(
  _params: ParamsOf<"config/mcpServer/reload">,
  context: HandlerContext,
): Promise<ResultOf<"config/mcpServer/reload">> {
  try {
    await context.runtime.reloadConfig();
  } catch (error) {
    throw RpcError.invalidRequest(`Invalid configuration: ${errorMessage(error)}`);
  }
  return {};
}
