/**
 * What is wrong with a configuration, told to a client as notifications (the CLI writes the same
 * on stderr): `configWarning` for each key nobody reads or project layer left out, `warning` when
 * the model provider cannot be used as configured, `deprecationNotice` for each setting spelled
 * the deprecated way. Sent after `initialize` for the server's configuration, and after a thread
 * opens for what only its own configuration (project layers, overrides) adds.
 */
import type { Config } from "../../config/load.js";
import { encodeNotification } from "./protocol/jsonrpc.js";
import type { ServerNotification } from "./protocol/server-messages.js";

type Notices = Pick<Config, "warnings" | "deprecations" | "providerProblem">;

/** Every notice `config` calls for, leaving out those `shown` (already told) also calls for. */
export function configNotices(config: Notices, shown?: Notices, threadId?: string): ServerNotification[] {
  const out: ServerNotification[] = [];
  for (const warning of config.warnings) {
    if (shown?.warnings.includes(warning)) continue;
    out.push({ method: "configWarning", params: configWarningOf(warning) });
  }
  if (config.providerProblem && config.providerProblem !== shown?.providerProblem)
    out.push({ method: "warning", params: { threadId: threadId ?? null, message: config.providerProblem } });
  const told = new Set((shown?.deprecations ?? []).map((notice) => notice.summary));
  for (const { summary, details } of config.deprecations ?? []) {
    if (!told.has(summary)) out.push({ method: "deprecationNotice", params: { summary, details } });
  }
  return out;
}

/** Send `notices` to a client. */
export function sendNotices(send: (text: string) => void, notices: readonly ServerNotification[]): void {
  for (const { method, params } of notices) send(encodeNotification(method, params));
}

/**
 * A warning line as config/load.ts words it, `FILE: problem`, split so the client can point at
 * the file; other warnings (a `-c` override's) have no file.
 */
function configWarningOf(warning: string): { summary: string; details: string | null; path: string | null } {
  const file = /^(\/[^:]*\.toml): (.*)$/s.exec(warning);
  if (!file?.[1] || !file[2]) return { summary: warning, details: null, path: null };
  return { summary: file[2], details: warning, path: file[1] };
}
