/**
 * The options of `exec` as data: program.ts registers them with commander (help, errors, every
 * other subcommand), and exec-argv.ts parses a plain `tscodex [options] exec [options] [prompt]`
 * from the same table without loading commander. One table, so the two cannot drift.
 */
import { profileNameProblem } from "../../config/profile-files.js";
import type { ExecCliOptions } from "./exec.js";

export interface OptionSpec {
  /** Commander's flags string: `-m, --model <model>` (value) or `--json` (switch). */
  flags: string;
  description: string;
  /** Given again, the values add up (`-c a=1 -c b=2`); the default is `[]`. */
  repeatable?: true;
  choices?: readonly string[];
  /** The value when the option is absent (commander's default). */
  defaultValue?: string;
  /** Why a value is refused (a usage error), or null when it is taken. */
  check?: (value: string) => string | null;
}

/**
 * Options Codex accepts both before the subcommand (`tscodex -C DIR -c k=v --search exec ...`)
 * and on `exec` / `review` themselves.
 */
export const SHARED_OPTIONS: readonly OptionSpec[] = [
  { flags: "-m, --model <model>", description: "model to use (default from config, else gpt-5.2-codex)" },
  {
    flags: "-p, --profile <name>",
    description:
      "config profile: <home>/<name>.config.toml over config.toml (a legacy [profiles.<name>] table still works, with a warning)",
    check: profileNameProblem,
  },
  {
    flags: "-c, --config <key=value>",
    description: "override a config key (value parsed as TOML); repeatable",
    repeatable: true,
  },
  {
    flags: "--enable <feature>",
    description: "turn a feature on (features.NAME=true), e.g. unified_exec; repeatable",
    repeatable: true,
  },
  {
    flags: "--disable <feature>",
    description: "turn a feature off (features.NAME=false), e.g. shell_tool; repeatable",
    repeatable: true,
  },
  { flags: "-C, --cd <dir>", description: "working directory for the agent" },
  {
    flags: "-s, --sandbox <mode>",
    description:
      "sandbox mode for commands the agent runs (default read-only; bubblewrap, else the Landlock helper)",
    choices: ["read-only", "workspace-write", "danger-full-access"],
  },
  {
    flags: "-a, --ask-for-approval <policy>",
    description:
      "approval policy (default: on-request in the terminal UI, never in exec); exec has nobody to ask, so questions are answered at once by config approvals.exec_outcome (deny, or approve)",
    choices: ["untrusted", "on-failure", "on-request", "never"],
  },
  {
    flags: "--full-auto",
    description: "workspace-write sandbox (cwd, writable_roots and /tmp writable), no approvals",
  },
  {
    flags: "--dangerously-bypass-approvals-and-sandbox",
    description:
      "danger-full-access sandbox and no approvals (only inside an externally sandboxed environment)",
  },
  {
    flags: "--oss",
    description:
      "use a local open-source provider: --local-provider, else config oss_provider, else Ollama (localhost:11434)",
  },
  {
    flags: "--local-provider <provider>",
    description: "with --oss: lmstudio (localhost:1234) or ollama (localhost:11434)",
    choices: ["lmstudio", "ollama"],
  },
  { flags: "--strict-config", description: "refuse config keys this version does not read (default: warn)" },
  {
    flags: "--ignore-user-config",
    description: "do not read the home's config.toml (nor a profile file); the home is still used",
  },
  { flags: "--ignore-rules", description: "do not load the execpolicy .rules files (the home's rules/)" },
  { flags: "--search", description: 'enable the live web_search tool (web_search = "live")' },
  {
    flags: "--add-dir <dir>",
    description: "an extra writable root besides the workspace; repeatable",
    repeatable: true,
  },
  { flags: "-i, --image <file>", description: "attach an image to the prompt; repeatable", repeatable: true },
];

/** The options `exec` and `exec resume` add to the shared ones. */
export const EXEC_OPTIONS: readonly OptionSpec[] = [
  { flags: "--json", description: "print events as JSON lines on stdout" },
  { flags: "--experimental-json", description: "the same as --json (the Codex SDK's spelling)" },
  {
    flags: "-o, --output-last-message <file>",
    description: "also write the final agent message to this file",
  },
  {
    flags: "--output-schema <file>",
    description: "JSON Schema the final message must match (the model answers in JSON)",
  },
  { flags: "--skip-git-repo-check", description: "allow running outside a git repository" },
  {
    flags: "--dangerously-bypass-hook-trust",
    description: "run configured hooks that were never trusted (`tscodex hooks trust`), for this run only",
  },
  {
    flags: "--approve-for-me",
    description:
      "route approval requests through automatic review (a reviewer model; PermissionRequest hooks first) in the workspace-write sandbox; approval on-request unless -a says otherwise",
  },
  {
    flags: "--trust",
    description:
      'trust this project: save [projects."<your git root, else cwd>"] trust_level = "trusted" in config.toml, so its .codex/config.toml applies',
  },
  { flags: "--ephemeral", description: "do not record the thread (no rollout: it cannot be resumed)" },
  { flags: "--include-plan-tool", description: "offer the update_plan tool (tools.update_plan=true)" },
  {
    flags: "--thread-source <source>",
    description: "who started the thread; recorded in the rollout metadata",
  },
  {
    flags: "--cyber-access-program <program>",
    description: "accepted for the Codex SDK; recorded in the rollout metadata",
  },
  { flags: "--color <when>", description: "colour human output: always, never, auto", defaultValue: "auto" },
  {
    flags: "--remote <url>",
    description:
      "run the turn on an existing app-server at ws://HOST:PORT (tscodex's or Codex's): its model, files and threads",
  },
  {
    flags: "--remote-auth-token-env <var>",
    description: "with --remote: send `Authorization: Bearer <value of VAR>` (app-server --api-key-env)",
  },
];

/** An OptionSpec's flags taken apart: `-m, --model <model>` → short `-m`, long `--model`, key `model`. */
export interface ParsedFlags {
  short: string | null;
  long: string;
  /** The options object's key: the long name in camelCase, as commander names it. */
  key: string;
  takesValue: boolean;
}

export function parseFlags(flags: string): ParsedFlags {
  const short = /^(-\w),/.exec(flags)?.[1] ?? null;
  const long = /(--[\w-]+)/.exec(flags)?.[1];
  if (!long) throw new Error(`option without a long name: ${flags}`);
  const key = long.slice(2).replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
  return { short, long, key, takesValue: flags.includes("<") };
}

/** Options given after `resume` win over the same ones given before it; lists are joined. */
export function mergeExecOptions<T extends ExecCliOptions>(parent: Partial<ExecCliOptions>, own: T): T {
  const merged = { ...parent } as T;
  for (const [key, value] of Object.entries(own) as [keyof ExecCliOptions, unknown][]) {
    const before = parent[key];
    if (Array.isArray(value) && Array.isArray(before))
      Object.assign(merged, { [key]: [...before, ...value] });
    else if (value !== undefined && !(key === "color" && value === "auto"))
      Object.assign(merged, { [key]: value });
  }
  return merged;
}
