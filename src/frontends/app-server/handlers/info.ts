import type { Config } from "../../../config/load.js";
import { enabledMcpServers } from "../../../config/mcp-servers.js";
import {
  defaultReasoningEffort,
  findModelFamily,
  knownModelSlugs,
  reasoningEfforts,
} from "../../../model/family.js";
import { checkMcpEnvironment } from "../mcp-environment.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import type { HandlerContext } from "./context.js";
import { page } from "./thread-queries.js";

const EFFORT_TEXT: Record<string, string> = {
  low: "Fastest answers, least reasoning",
  medium: "Balanced reasoning and speed",
  high: "More reasoning for harder tasks",
  xhigh: "The most reasoning, for the hardest tasks",
};

type Model = ResultOf<"model/list">["data"][number];

/** The configured model first (the default), then the models tscodex knows the tools of. */
export async function modelList(
  params: ParamsOf<"model/list">,
  context: HandlerContext,
): Promise<ResultOf<"model/list">> {
  const config = context.runtime.config;
  const profileModels = Object.values(config.profiles).flatMap((profile) =>
    profile.model ? [profile.model] : [],
  );
  const slugs = [...new Set([config.model, ...profileModels, ...knownModelSlugs()])];
  return page(
    slugs.map((slug) => modelEntry(slug, slug === config.model)),
    params.cursor,
    params.limit,
  );
}

function modelEntry(slug: string, isDefault: boolean): Model {
  const family = findModelFamily(slug);
  const efforts = reasoningEfforts(slug);
  const defaultEffort = (defaultReasoningEffort(slug) ?? "none") as Model["defaultReasoningEffort"];
  return {
    id: slug,
    model: slug,
    displayName: slug,
    description: isDefault
      ? `${slug}: the configured default model`
      : `${slug}: ${family.reasoning ? "reasoning model" : "model"} with ${family.shellType} and ${family.applyPatch} apply_patch tools`,
    supportedReasoningEfforts: efforts.map((effort) => ({
      reasoningEffort: effort as Model["defaultReasoningEffort"],
      description: EFFORT_TEXT[effort] ?? effort,
    })),
    defaultReasoningEffort: defaultEffort,
    isDefault,
    hidden: false,
  };
}

type ServerStatus = ResultOf<"mcpServerStatus/list">["data"][number];

/** Listing starts every configured server, so it is done once per configuration. */
const statusCache = new WeakMap<Config, Promise<ServerStatus[]>>();

export async function mcpServerStatusList(
  params: ParamsOf<"mcpServerStatus/list">,
  context: HandlerContext,
): Promise<ResultOf<"mcpServerStatus/list">> {
  const config = context.runtime.config;
  let statuses = statusCache.get(config);
  if (!statuses) {
    statuses = serverStatuses(config, context.runtime.env);
    statusCache.set(config, statuses);
    statuses.catch(() => statusCache.delete(config));
  }
  checkMcpEnvironment(params.environmentId);
  const found = page(await statuses, params.cursor, params.limit);
  // The registration asked about is the local one: say so; otherwise each is thread-wide (null).
  const environmentId = params.environmentId ?? null;
  return { ...found, data: found.data.map((status) => ({ ...status, environmentId })) };
}

/** Start the enabled servers, read what they offer, close them. Servers that fail are left out. */
async function serverStatuses(config: Config, env: NodeJS.ProcessEnv): Promise<ServerStatus[]> {
  const servers = enabledMcpServers(config.mcpServers);
  if (servers.length === 0) return [];
  const { McpClientManager } = await import("../../../mcp/client-manager.js");
  const manager = McpClientManager.start(servers, { env, cwd: process.cwd(), home: config.home });
  try {
    await manager.ready;
    const tools = manager.tools();
    return await Promise.all(
      manager.readyServers().map(async (name): Promise<ServerStatus> => {
        const own = tools.filter((tool) => tool.server === name);
        const hasResources = manager.hasResources(name);
        const [resources, templates] = hasResources
          ? await Promise.all([
              manager.listResources(name).catch(() => null),
              manager.listResourceTemplates(name).catch(() => null),
            ])
          : [null, null];
        const config = servers.find(([server]) => server === name)?.[1];
        return {
          name,
          tools: Object.fromEntries(
            own.map((tool) => [
              tool.tool,
              { name: tool.tool, description: tool.description, inputSchema: tool.inputSchema },
            ]),
          ),
          resources: resources?.items ?? [],
          resourceTemplates: templates?.items ?? [],
          authStatus: config?.bearer_token_env_var ? "bearerToken" : "unsupported",
        };
      }),
    );
  } finally {
    await manager.dispose();
  }
}
