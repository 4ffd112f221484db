/**
 * The work behind `tscodex hooks …`: the configured command hooks of the layers that apply
 * here, and recording trust for them (`[hooks.state."<key>"] trusted_hash` in
 * `$TSCODEX_HOME/config.toml`). A hook runs only once trusted, and an edited hook needs trusting
 * again (its hash changes). The human views show the control characters of what the hook files
 * hold (commands, matchers, paths; terminal-text.ts); `--json` is exact.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setHookTrust } from "../../config/hook-trust-edit.js";
import { tscodexHome } from "../../config/load.js";
import { type CommandHook, loadHookSources } from "../../hooks/index.js";
import { readTextOrEmpty } from "../../util/files.js";
import { visibleLine } from "../common/terminal-text.js";

async function configuredHooks(): Promise<{ hooks: CommandHook[]; warnings: string[] }> {
  return loadHookSources({ home: tscodexHome(), cwd: process.cwd(), env: process.env, bypassTrust: false });
}

function describe(hook: CommandHook): string {
  const matcher = hook.matcherText ? ` matcher ${JSON.stringify(hook.matcherText)}` : "";
  return [
    `${hook.trustStatus.padEnd(9)} ${hook.event}${matcher} (timeout ${hook.timeoutSec}s)`,
    `  key:     ${hook.key}`,
    `  command: ${hook.command}`,
    `  hash:    ${hook.hash}`,
  ]
    .map(visibleLine)
    .join("\n");
}

export async function listHooks(options: { json?: boolean }): Promise<number> {
  const { hooks, warnings } = await configuredHooks();
  for (const warning of warnings) process.stderr.write(`warning: ${visibleLine(warning)}\n`);
  if (options.json) {
    const rows = hooks.map((hook) => ({
      key: hook.key,
      event: hook.event,
      matcher: hook.matcherText,
      command: hook.command,
      timeout: hook.timeoutSec,
      source: hook.source,
      currentHash: hook.hash,
      trusted: hook.trusted,
      trustStatus: hook.trustStatus,
    }));
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  if (hooks.length === 0) process.stdout.write("No hooks configured.\n");
  for (const hook of hooks) process.stdout.write(`${describe(hook)}\n`);
  return 0;
}

export async function trustHooks(keys: string[], options: { all?: boolean }): Promise<number> {
  const { hooks } = await configuredHooks();
  const chosen = options.all ? hooks : hooks.filter((hook) => keys.includes(hook.key));
  const unknown = keys.filter((key) => !hooks.some((hook) => hook.key === key));
  if (unknown.length > 0) {
    process.stderr.write(
      `tscodex: no configured hook with key ${visibleLine(unknown.join(", "))} (see \`tscodex hooks list\`)\n`,
    );
    return 1;
  }
  if (chosen.length === 0) {
    process.stderr.write("tscodex: name the hooks to trust by key, or pass --all\n");
    return 1;
  }
  const home = tscodexHome();
  const path = join(home, "config.toml");
  let text = await readTextOrEmpty(path);
  for (const hook of chosen) text = setHookTrust(text, hook.key, hook.hash).text;
  await mkdir(home, { recursive: true });
  await writeFile(path, text);
  for (const hook of chosen) process.stdout.write(`trusted ${visibleLine(`${hook.key}: ${hook.command}`)}\n`);
  return 0;
}
