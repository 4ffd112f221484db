/**
 * What `tscodex exec` and `exec --remote` (exec-remote.ts) share: the options, the prompt (its
 * argument and stdin), `--output-schema`, the flags that are config keys, colour, and exec's
 * answer to questions for the user.
 */
import { readFile } from "node:fs/promises";
import { type ConfigOverride, ConfigOverrideError } from "../../config/overrides.js";
import type { UserInputResponse, UserQuestion } from "../../protocol/agents.js";
import type { ApprovalPolicy, SandboxMode } from "../../protocol/policy.js";
import { errorMessage } from "../../util/errors.js";

export interface ExecCliOptions {
  model?: string;
  profile?: string;
  config: string[];
  /** Feature names from `--enable` / `--disable`: `features.NAME = true / false`. */
  enable: string[];
  disable: string[];
  cd?: string;
  sandbox?: SandboxMode;
  askForApproval?: ApprovalPolicy;
  fullAuto?: boolean;
  oss?: boolean;
  /** `--local-provider`: which local provider `--oss` uses. */
  localProvider?: "lmstudio" | "ollama";
  /** `--strict-config`, `--ignore-user-config`, `--ignore-rules`: how config is loaded (LoadOptions). */
  strictConfig?: boolean;
  ignoreUserConfig?: boolean;
  ignoreRules?: boolean;
  image: string[];
  json?: boolean;
  /** `--experimental-json`: what the Codex SDK passes; the same as `--json`. */
  experimentalJson?: boolean;
  outputLastMessage?: string;
  /** A JSON Schema file: the final message must be JSON matching it. */
  outputSchema?: string;
  skipGitRepoCheck?: boolean;
  dangerouslyBypassHookTrust?: boolean;
  approveForMe?: boolean;
  /** Record the project as trusted (config.toml `[projects]`), so its own config layers apply. */
  trust?: boolean;
  color: string;
  /** `--add-dir`: extra writable roots (workspace-write). */
  addDir?: string[];
  /** `--search`: `web_search = "live"`. */
  search?: boolean;
  dangerouslyBypassApprovalsAndSandbox?: boolean;
  /** `--ephemeral`: no rollout. */
  ephemeral?: boolean;
  includePlanTool?: boolean;
  /** Recorded in the rollout metadata (the SDK passes them). */
  threadSource?: string;
  cyberAccessProgram?: string;
  /** `--remote ws://HOST:PORT`: the turn runs on that app-server (exec-remote.ts). */
  remote?: string;
  /** `--remote-auth-token-env VAR`: the bearer key for `--remote`, read from VAR. */
  remoteAuthTokenEnv?: string;
}

/** `tscodex exec resume [ID|--last]`: which stored thread to continue. */
export type ResumeTarget = { id: string } | { last: true };

/** `tscodex exec fork ID`: the stored thread a new thread copies before the prompt runs. */
export interface ForkTarget {
  fork: string;
}

/** Each question answered with its first suggested option (or nothing when it has none). */
export function firstOptions(questions: UserQuestion[]): UserInputResponse {
  const answers: UserInputResponse["answers"] = {};
  for (const question of questions) {
    const first = question.options?.[0]?.label;
    answers[question.id] = { answers: first ? [first] : [] };
  }
  return { answers };
}

/** `--output-schema FILE`: a JSON object (a JSON Schema), or a clear error naming the file. */
export async function readOutputSchema(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new Error(`--output-schema: cannot read ${path}: ${errorMessage(error)}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`--output-schema: ${path} is not valid JSON: ${errorMessage(error)}`, { cause: error });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`--output-schema: ${path} must hold a JSON object (a JSON Schema)`);
  }
  return value as Record<string, unknown>;
}

/**
 * Flags that are config keys, applied after `-c` as Codex does: `--enable X` / `--disable X`
 * (`features.X`), `--search` (`web_search = "live"`), `--include-plan-tool` (`tools.update_plan`).
 */
export function flagOverrides(
  options: Pick<ExecCliOptions, "enable" | "disable" | "search" | "includePlanTool">,
): ConfigOverride[] {
  const feature = (name: string, value: boolean): ConfigOverride => {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new ConfigOverrideError(`invalid feature name '${name}'`);
    return { path: ["features", name], value };
  };
  return [
    ...(options.enable ?? []).map((name) => feature(name, true)),
    ...(options.disable ?? []).map((name) => feature(name, false)),
    ...(options.search ? [{ path: ["web_search"], value: "live" }] : []),
    ...(options.includePlanTool ? [{ path: ["tools", "update_plan"], value: true }] : []),
  ];
}

/**
 * The prompt: the argument, else stdin. With both (stdin piped, not a terminal), stdin follows
 * the prompt as a `<stdin>` block, as Codex does (`git diff | tscodex exec "review this"`).
 */
export async function readPrompt(arg: string | undefined): Promise<string | null> {
  const fromArg = arg !== undefined && arg !== "-";
  if (process.stdin.isTTY) return fromArg ? arg : null;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (fromArg) return text.trim() === "" ? arg : `${arg}\n\n<stdin>\n${text.replace(/\n$/, "")}\n</stdin>`;
  return text.trim() === "" ? null : text.trim();
}

export function wantsColor(mode: string): boolean {
  if (mode === "always") return true;
  if (mode === "never") return false;
  return Boolean(process.stderr.isTTY) && !process.env.NO_COLOR;
}
