/**
 * Codex 0.169 methods tscodex deliberately does not serve, with the reason a client is told
 * (JSON-RPC -32601): they need OpenAI's hosted services or a platform tscodex does not target.
 */

const NOT_PROVIDED: readonly { prefix: string; reason: string }[] = [
  {
    prefix: "account/",
    reason:
      "ChatGPT accounts, usage and login (API-key accounts are served: account/read, account/login/start)",
  },
  { prefix: "accountSession/", reason: "ChatGPT accounts and login" },
  { prefix: "userVerification/", reason: "ChatGPT accounts and login" },
  { prefix: "feedback/", reason: "uploads to OpenAI" },
  { prefix: "marketplace/", reason: "apps, plugins and the marketplace" },
  { prefix: "plugin/", reason: "apps, plugins and the marketplace" },
  { prefix: "app/", reason: "apps, plugins and the marketplace" },
  { prefix: "thread/realtime/", reason: "realtime voice" },
  { prefix: "windowsSandbox/", reason: "the Windows sandbox" },
  { prefix: "remoteControl/", reason: "remote control" },
  { prefix: "thread/attachment/", reason: "attachments" },
  { prefix: "thread/attachmentOwner/", reason: "attachments" },
  { prefix: "threadSection/", reason: "thread sections" },
  { prefix: "thread/section/", reason: "thread sections" },
];

/** Why `method` is not served, when it is one of the out-of-scope families; else null. */
export function notProvidedMessage(method: string): string | null {
  const family = NOT_PROVIDED.find(({ prefix }) => method.startsWith(prefix));
  return family ? `tscodex does not provide \`${method}\` (${family.reason} are out of its scope)` : null;
}
