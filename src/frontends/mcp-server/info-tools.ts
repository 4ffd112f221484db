/**
 * The session tools about the server itself: listModels (from its configuration), listTools
 * and help (from the runtime's tool list), and ping.
 */
import { z } from "zod";
import { missingKeyMessage, resolveProvider } from "../../config/providers.js";
import { VERSION } from "../../version.js";
import { ok, type ServerToolResult } from "./results.js";
import type { ServerTool, ServerToolContext } from "./server-tool.js";
import { defineSessionTool, errorField, noArgs } from "./session-tool.js";

export const listModelsTool = defineSessionTool({
  name: "listModels",
  description:
    "Models and providers from the configuration: the current default, every provider, every profile, and the model names they use.",
  input: noArgs,
  output: z.object({
    defaultModel: z.string().optional(),
    defaultProvider: z.string().optional(),
    activeProfile: z.string().nullable().optional(),
    models: z.array(z.string()).optional(),
    providers: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          baseUrl: z.string(),
          wireApi: z.string(),
          keyAvailable: z.boolean(),
        }),
      )
      .optional(),
    profiles: z
      .array(z.object({ name: z.string(), model: z.string().optional(), provider: z.string().optional() }))
      .optional(),
    error: errorField,
  }),
  handle: listModels,
});

export const listToolsTool = defineSessionTool({
  name: "listTools",
  description: "Every tool of this server with its input (and output) JSON schema, machine-readable.",
  input: noArgs,
  output: z.object({
    tools: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        inputSchema: z.record(z.string(), z.unknown()),
        outputSchema: z.record(z.string(), z.unknown()).optional(),
      }),
    ),
  }),
  handle: async (_args, context) => {
    const tools = context.runtime.tools.map((entry) => ({
      name: entry.name,
      description: entry.description,
      inputSchema: entry.inputSchema,
      ...(entry.outputSchema ? { outputSchema: entry.outputSchema } : {}),
    }));
    return ok(JSON.stringify({ tools }, null, 2), { tools });
  },
});

export const pingTool = defineSessionTool({
  name: "ping",
  description: "Check that the server is alive; returns ok and the server version.",
  input: noArgs,
  output: z.object({ ok: z.boolean(), version: z.string() }),
  handle: async () => ok(`pong: tscodex ${VERSION}`, { ok: true, version: VERSION }),
});

export const helpTool = defineSessionTool({
  name: "help",
  description: "A short usage text of every tool of this server.",
  input: noArgs,
  output: z.object({ text: z.string(), tools: z.array(z.object({ name: z.string(), usage: z.string() })) }),
  handle: async (_args, context) => {
    const tools = context.runtime.tools.map((entry) => ({ name: entry.name, usage: usageLine(entry) }));
    const text = [
      `tscodex ${VERSION} MCP server tools:`,
      ...tools.map((entry) => `- ${entry.usage}`),
      "Long results return nextPageToken; pass it back as pageToken. Ids: threadId (a unique prefix works).",
    ].join("\n");
    return ok(text, { text, tools });
  },
});

async function listModels(_args: unknown, context: ServerToolContext): Promise<ServerToolResult> {
  const { config } = context.runtime;
  const env = process.env;
  const providers = Object.entries(config.modelProviders).map(([id, provider]) => {
    const resolved = resolveProvider(id, provider, env);
    return {
      id,
      name: resolved.name,
      baseUrl: resolved.baseUrl,
      wireApi: resolved.wireApi,
      keyAvailable: missingKeyMessage(id, provider, env, "") === null,
    };
  });
  const profiles = Object.entries(config.profiles).map(([name, profile]) => ({
    name,
    ...(profile.model ? { model: profile.model } : {}),
    ...(profile.model_provider ? { provider: profile.model_provider } : {}),
  }));
  const models = [
    ...new Set([config.model, ...profiles.flatMap((profile) => (profile.model ? [profile.model] : []))]),
  ];
  const activeProfile = config.profile ?? null;
  const structured = {
    defaultModel: config.model,
    defaultProvider: config.provider.id,
    activeProfile,
    models,
    providers,
    profiles,
  };
  const text = [
    `Default: ${config.model} via ${config.provider.id}${activeProfile ? ` (profile ${activeProfile})` : ""}`,
    `Models: ${models.join(", ")}`,
    `Providers: ${providers.map((p) => `${p.id} (${p.wireApi}, ${p.baseUrl}${p.keyAvailable ? "" : ", key missing"})`).join("; ")}`,
    `Profiles: ${profiles.length ? profiles.map((p) => `${p.name}${p.model ? ` → ${p.model}` : ""}`).join(", ") : "none"}`,
  ].join("\n");
  return ok(text, structured);
}

/** `name(required, optional?): first sentence of the description`. */
function usageLine(entry: ServerTool): string {
  const properties = Object.keys((entry.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
  const required = new Set((entry.inputSchema.required as string[] | undefined) ?? []);
  const params = properties.map((name) => (required.has(name) ? name : `${name}?`)).join(", ");
  const sentence = /^[\s\S]*?[.!?](?=\s|$)/.exec(entry.description)?.[0] ?? entry.description;
  return `${entry.name}(${params}): ${sentence}`;
}
