/**
 * Where hooks come from, as Codex 0.169 reads them: per layer, `hooks.json` and the `[hooks]`
 * tables of `config.toml`. Layers: the home (and a Codex user's home, `$CODEX_HOME` else
 * `~/.codex`, when it is another directory: config/codex-home.ts), then each trusted project's
 * `.codex/` from the repository root down to the cwd (only files this user controls,
 * config/ownership.ts). Both forms in one layer load, with a warning; SessionEnd
 * timeouts are clamped to 3 s, with a warning.
 */
import { lstat, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { userHomes } from "../config/codex-home.js";
import { projectDirs } from "../config/layers.js";
import { notOursBecause, notOursWarning, readIfOurs } from "../config/ownership.js";
import { projectRootOf, projectTrust, untrustedProjectWarning } from "../config/project-trust.js";
import { isHookEventName } from "./events.js";
import { type CommandHook, DEFAULT_TIMEOUT_SEC, SESSION_END_MAX_TIMEOUT_SEC } from "./handler.js";
import { hookStateKey, hookTrustHash, trustedHashes } from "./trust.js";

interface HandlerEntry {
  type: string;
  command?: string;
  timeout?: number;
  statusMessage?: string;
}

interface GroupEntry {
  matcher?: string;
  hooks: HandlerEntry[];
}

/**
 * `{Event: [{matcher, hooks: [{type, command, timeout}]}]}` checked by hand (zod stays off the
 * start-up path); null with the problem when the shape is wrong.
 */
function eventsOf(raw: unknown): Record<string, GroupEntry[]> | string {
  if (!isTable(raw)) return "expected a table of events";
  const events: Record<string, GroupEntry[]> = {};
  for (const [event, groups] of Object.entries(raw)) {
    if (!Array.isArray(groups)) return `${event}: expected an array of matcher groups`;
    events[event] = [];
    for (const group of groups) {
      if (!isTable(group)) return `${event}: expected a matcher group table`;
      if (group.matcher !== undefined && typeof group.matcher !== "string")
        return `${event}: matcher must be a string`;
      const handlers = group.hooks ?? [];
      if (!Array.isArray(handlers)) return `${event}: hooks must be an array`;
      const checked: HandlerEntry[] = [];
      for (const handler of handlers) {
        if (!isTable(handler) || typeof handler.type !== "string") return `${event}: each hook needs a type`;
        if (handler.command !== undefined && typeof handler.command !== "string")
          return `${event}: command must be a string`;
        if (handler.timeout !== undefined && !(typeof handler.timeout === "number" && handler.timeout > 0))
          return `${event}: timeout must be a positive number of seconds`;
        if (handler.statusMessage !== undefined && typeof handler.statusMessage !== "string")
          return `${event}: statusMessage must be a string`;
        checked.push(handler as unknown as HandlerEntry);
      }
      events[event]?.push({
        ...(typeof group.matcher === "string" ? { matcher: group.matcher } : {}),
        hooks: checked,
      });
    }
  }
  return events;
}

export interface LoadedHooks {
  hooks: CommandHook[];
  warnings: string[];
}

export interface HookSourceOptions {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** --dangerously-bypass-hook-trust: every hook counts as trusted for this run. */
  bypassTrust: boolean;
}

/** Every configured command hook of the layers that apply in `cwd`, with its trust. */
export async function loadHookSources(options: HookSourceOptions): Promise<LoadedHooks> {
  const homes = await userHomes(options.home, options.env);
  const warnings: string[] = [];
  const homeTables = await Promise.all(homes.map((home) => readToml(join(home, "config.toml"), warnings)));
  const trusted = new Map<string, string>();
  for (const table of homeTables)
    for (const [key, hash] of trustedHashes(table ?? {})) trusted.set(key, hash);

  const layers: string[] = [...homes];
  // Project layers only for a trusted project (config/project-trust.ts, as for config.toml).
  const root = await projectRootOf(options.cwd);
  const level = projectTrust(homeTables[0] ?? {}, options.cwd, root);
  const projectFolders = (await projectDirs(options.cwd))
    .map((dir) => join(dir, ".codex"))
    .filter((folder) => !homes.includes(resolve(folder)));
  if (level === "trusted") layers.push(...projectFolders);
  else {
    // config.toml layers left out are named by the config loader; hooks.json files here.
    const skipped = projectFolders.map((folder) => join(folder, "hooks.json"));
    const found = await Promise.all(
      skipped.map((path) =>
        readFile(path).then(
          () => path,
          () => null,
        ),
      ),
    );
    const present = found.filter((path): path is string => path !== null);
    if (present.length > 0)
      warnings.push(
        untrustedProjectWarning(present, root, join(homes[0] ?? options.home, "config.toml"), level),
      );
  }
  const hooks: CommandHook[] = [];
  for (const folder of layers) {
    const jsonPath = join(folder, "hooks.json");
    const tomlPath = join(folder, "config.toml");
    const isHome = homes.includes(folder);
    // A project file this user does not control never loads (config/ownership.ts); the config
    // loader already names a refused config.toml, so only hooks.json is named here.
    const jsonRefused = !isHome && (await refused(folder, jsonPath, warnings));
    const tomlRefused = !isHome && (await refused(folder, tomlPath, null));
    const fromJson = jsonRefused ? null : await readHooksJson(jsonPath, warnings, !isHome);
    const table = isHome
      ? homeTables[homes.indexOf(folder)]
      : tomlRefused
        ? null
        : await readToml(tomlPath, warnings, true);
    const tomlHooks = table && isTable(table.hooks) ? withoutState(table.hooks) : null;
    const fromToml = tomlHooks && Object.keys(tomlHooks).length > 0 ? tomlHooks : null;
    if (fromJson && fromToml)
      warnings.push(
        `loading hooks from both ${jsonPath} and ${tomlPath}; prefer a single representation for this layer`,
      );
    const layer = isHome ? "user" : "project";
    if (fromJson) hooks.push(...handlersOf(fromJson, jsonPath, layer, warnings));
    if (fromToml) hooks.push(...handlersOf(fromToml, tomlPath, layer, warnings));
  }
  hooks.forEach((hook, index) => {
    hook.displayOrder = index;
  });
  for (const hook of hooks) {
    const stored = trusted.get(hook.key);
    hook.trustStatus = stored === undefined ? "untrusted" : stored === hook.hash ? "trusted" : "modified";
    hook.trusted = options.bypassTrust || hook.trustStatus === "trusted";
  }
  return { hooks, warnings };
}

function handlersOf(
  raw: unknown,
  source: string,
  layer: CommandHook["layer"],
  warnings: string[],
): CommandHook[] {
  const parsed = eventsOf(raw);
  if (typeof parsed === "string") {
    warnings.push(`${source}: invalid hooks: ${parsed} (ignored)`);
    return [];
  }
  const hooks: CommandHook[] = [];
  for (const [event, groups] of Object.entries(parsed)) {
    if (!isHookEventName(event)) {
      warnings.push(`${source}: unknown hook event '${event}' (ignored)`);
      continue;
    }
    groups.forEach((group, groupIndex) => {
      let matcher: RegExp | null = null;
      if (group.matcher !== undefined && group.matcher !== "" && group.matcher !== "*") {
        try {
          matcher = new RegExp(group.matcher);
        } catch {
          warnings.push(`${source}: invalid matcher '${group.matcher}' for ${event} (ignored)`);
          return;
        }
      }
      group.hooks.forEach((handler, handlerIndex) => {
        if (handler.type !== "command" || !handler.command) {
          warnings.push(`${source}: ${event} hook of type '${handler.type}' is not supported (ignored)`);
          return;
        }
        let timeoutSec = handler.timeout ?? DEFAULT_TIMEOUT_SEC;
        if (event === "SessionEnd" && timeoutSec > SESSION_END_MAX_TIMEOUT_SEC) {
          timeoutSec = SESSION_END_MAX_TIMEOUT_SEC;
          warnings.push(`clamping SessionEnd hook timeout to 3s in ${source}`);
        }
        const identity = {
          event,
          matcher: group.matcher ?? null,
          command: handler.command,
          timeoutSec: handler.timeout ?? DEFAULT_TIMEOUT_SEC,
          statusMessage: handler.statusMessage ?? null,
        };
        hooks.push({
          kind: "command",
          event,
          matcher,
          matcherText: group.matcher ?? null,
          command: handler.command,
          timeoutSec,
          source,
          layer,
          displayOrder: 0,
          statusMessage: handler.statusMessage ?? null,
          key: hookStateKey(source, event, groupIndex, handlerIndex),
          hash: hookTrustHash(identity),
          trusted: false,
          trustStatus: "untrusted",
        });
      });
    });
  }
  return hooks;
}

/**
 * Whether project file `path` (in `folder`) exists and this user does not control it or its
 * folder; then it is warned about in `warnings` (unless null).
 */
async function refused(folder: string, path: string, warnings: string[] | null): Promise<boolean> {
  if (!(await isPresent(path))) return false;
  const reason = (await notOursBecause(folder)) ?? (await notOursBecause(path));
  if (reason && warnings) warnings.push(notOursWarning(path, reason));
  return reason !== null;
}

async function isPresent(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** `readFile`, or for a project file (`project`) readIfOurs: checked again on the open file. */
function readText(path: string, project: boolean): Promise<string | null> {
  return project ? readIfOurs(path) : readFile(path, "utf8").catch(() => null);
}

async function readHooksJson(path: string, warnings: string[], project = false): Promise<unknown> {
  const text = await readText(path, project);
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (isTable(parsed) && isTable(parsed.hooks)) return parsed.hooks;
    warnings.push(`${path}: expected {"hooks": {...}} (ignored)`);
  } catch (error) {
    warnings.push(`${path}: invalid JSON: ${(error as Error).message} (ignored)`);
  }
  return null;
}

async function readToml(
  path: string,
  warnings: string[],
  project = false,
): Promise<Record<string, unknown> | null> {
  const text = await readText(path, project);
  if (text === null) return null;
  try {
    return JSON.parse(JSON.stringify(parseToml(text))) as Record<string, unknown>;
  } catch (error) {
    warnings.push(`${path}: invalid TOML: ${(error as Error).message} (hooks ignored)`);
    return null;
  }
}

function withoutState(hooks: Record<string, unknown>): Record<string, unknown> {
  const { state: _state, ...events } = hooks;
  return events;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
