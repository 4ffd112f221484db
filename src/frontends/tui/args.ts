/**
 * The command line of the terminal UI: `tscodex [OPTIONS] [PROMPT]` and `tscodex resume [ID]
 * [--last] [--all]`, with Codex's global flags (`-i/--image` attaches files to the first prompt; `--oss`
 * picks the local open-source provider and, without `-m`, its default model). Parsed by hand
 * (no commander) so the first screen comes up fast; null when argv names another command, so
 * the full parser takes it.
 */
import type { ConfigLoadFlags } from "../../config/load.js";
import { profileNameProblem } from "../../config/profile-files.js";
import { isCodexCommandWord } from "../cli/codex-commands.js";

export interface TuiArgs {
  prompt?: string;
  /** `resume`: a thread id, "last" (`--last`), or "pick" (no id: the picker of stored threads). */
  resume?: string | undefined;
  /** `resume --all`: threads of every directory (by default, those of the cwd only). */
  all?: boolean;
  remote?: string;
  /** `--remote-auth-token-env VAR`: send `Authorization: Bearer $VAR` to the `--remote` server. */
  remoteAuthTokenEnv?: string;
  /** `--local-provider`: which local provider `--oss` picks (lmstudio or ollama). */
  localProvider?: string;
  model?: string;
  sandbox?: string;
  approvalPolicy?: string;
  cd?: string;
  profile?: string;
  /** `-i/--image`: files attached to the first prompt. */
  images?: string[];
  config: string[];
  /** `--strict-config`, `--ignore-user-config`, `--ignore-rules`: how the in-process server reads config. */
  load?: ConfigLoadFlags;
}

/** The load flags as the switches that set them. */
const LOAD_FLAGS: Record<string, keyof ConfigLoadFlags> = {
  "--strict-config": "strictConfig",
  "--ignore-user-config": "ignoreUserConfig",
  "--ignore-rules": "ignoreRules",
};

/** Top-level commands of `tscodex` (program.ts and its modules; Codex's: isCodexCommandWord). */
const COMMANDS = new Set([
  "exec",
  "e",
  "review",
  "apply-patch",
  "sandbox",
  "mcp",
  "memories",
  "mcp-server",
  "proxy",
  "app-server",
  "generate-json-schema",
  "sessions",
  "fork",
  "hooks",
  "skills",
  "help",
]);

const VALUE_FLAGS: Record<string, keyof TuiArgs> = {
  "-m": "model",
  "--model": "model",
  "-s": "sandbox",
  "--sandbox": "sandbox",
  "-a": "approvalPolicy",
  "--ask-for-approval": "approvalPolicy",
  "-C": "cd",
  "--cd": "cd",
  "-p": "profile",
  "--profile": "profile",
  "--remote": "remote",
  "--remote-auth-token-env": "remoteAuthTokenEnv",
  "--local-provider": "localProvider",
  "-c": "config",
  "--config": "config",
  "-i": "images",
  "--image": "images",
};

/** `--oss`'s model when `-m` names none (Codex's default open-source model; LM Studio's name for it). */
const OSS_MODEL = "gpt-oss:20b";
const LMSTUDIO_MODEL = "openai/gpt-oss-20b";

export function parseTuiArgs(argv: string[]): TuiArgs | null {
  const args: TuiArgs = { config: [] };
  const positionals: string[] = [];
  let last = false;
  let all = false;
  let oss = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const key = VALUE_FLAGS[flag];
    if (key) {
      const value = inline ?? argv[++i];
      if (value === undefined) return null;
      if (key === "config") args.config.push(value);
      // Codex takes `-i a.png,b.png` as well as repeated flags.
      else if (key === "images") args.images = [...(args.images ?? []), ...value.split(",").filter(Boolean)];
      else (args as unknown as Record<string, string>)[key] = value;
      continue;
    }
    if (arg === "--full-auto") {
      args.sandbox = "workspace-write";
      args.approvalPolicy = "on-request";
      continue;
    }
    if (arg === "--dangerously-bypass-approvals-and-sandbox") {
      args.sandbox = "danger-full-access";
      args.approvalPolicy = "never";
      continue;
    }
    const loadFlag = LOAD_FLAGS[arg];
    if (loadFlag) {
      args.load = { ...args.load, [loadFlag]: true };
      continue;
    }
    if (arg === "--oss") {
      oss = true;
      continue;
    }
    if (arg === "--last") {
      last = true;
      continue;
    }
    if (arg === "--all") {
      all = true;
      continue;
    }
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith("-") && arg !== "-") return null;
    positionals.push(arg);
  }
  const [first, ...rest] = positionals;
  if (first !== undefined && (COMMANDS.has(first) || isCodexCommandWord(first))) return null;
  // Values the full parser refuses with a usage error.
  if (args.profile !== undefined && profileNameProblem(args.profile)) return null;
  const local = args.localProvider;
  if (local !== undefined && local !== "lmstudio" && local !== "ollama") return null;
  if (args.profile) args.config.push(`profile=${JSON.stringify(args.profile)}`);
  if (oss) {
    args.config.push(`model_provider=${JSON.stringify(local ?? "oss")}`);
    args.model ??= local === "lmstudio" ? LMSTUDIO_MODEL : OSS_MODEL;
  }
  if (first === "resume") {
    if (rest.length > 1) return null;
    args.resume = last ? "last" : (rest[0] ?? "pick");
    if (all) args.all = true;
    return args;
  }
  if (last || all) return null;
  if (positionals.length > 0) args.prompt = positionals.join(" ");
  return args;
}
