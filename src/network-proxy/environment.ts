/**
 * The environment a proxied command gets (Codex's 34 variables, reference §4): every HTTP-ish
 * client variable pointing at the HTTP proxy, the ALL_PROXY family at SOCKS5 (`socks5h`: names
 * are resolved by the proxy), and the NO_PROXY family empty unless local binding is allowed
 * (then loopback and the private ranges go direct, which inside the sandbox's namespace means
 * the namespace's own loopback).
 */

const HTTP_PROXY_NAMES = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "http_proxy",
  "https_proxy",
  "WS_PROXY",
  "WSS_PROXY",
  "ws_proxy",
  "wss_proxy",
  "YARN_HTTP_PROXY",
  "YARN_HTTPS_PROXY",
  "BUNDLE_HTTP_PROXY",
  "BUNDLE_HTTPS_PROXY",
  "DOCKER_HTTP_PROXY",
  "DOCKER_HTTPS_PROXY",
  "PIP_PROXY",
  "NPM_CONFIG_HTTP_PROXY",
  "NPM_CONFIG_HTTPS_PROXY",
  "NPM_CONFIG_PROXY",
  "npm_config_http_proxy",
  "npm_config_https_proxy",
  "npm_config_proxy",
] as const;

const SOCKS_PROXY_NAMES = ["ALL_PROXY", "all_proxy", "FTP_PROXY", "ftp_proxy"] as const;

const NO_PROXY_NAMES = [
  "NO_PROXY",
  "no_proxy",
  "BUNDLE_NO_PROXY",
  "NPM_CONFIG_NOPROXY",
  "npm_config_noproxy",
] as const;

const NO_PROXY_LOCAL = "localhost,127.0.0.1,::1,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16";

/** Every variable proxyEnvironment sets (and stripProxyEnvironment removes). */
export const PROXY_ENVIRONMENT_NAMES: readonly string[] = [
  ...HTTP_PROXY_NAMES,
  ...SOCKS_PROXY_NAMES,
  ...NO_PROXY_NAMES,
  "CODEX_NETWORK_PROXY_ACTIVE",
  "CODEX_NETWORK_ALLOW_LOCAL_BINDING",
  "NODE_USE_ENV_PROXY",
  "ELECTRON_GET_USE_PROXY",
];

/**
 * The variables to set on a proxied command, for the loopback ports it reaches the proxy on
 * (inside a sandbox's namespace: the bridge's ports, not the host listener's).
 */
export function proxyEnvironment(
  ports: { httpPort: number; socksPort: number },
  allowLocalBinding: boolean,
): Record<string, string> {
  const env: Record<string, string> = {};
  const httpUrl = `http://127.0.0.1:${ports.httpPort}`;
  const socksUrl = `socks5h://127.0.0.1:${ports.socksPort}`;
  for (const name of HTTP_PROXY_NAMES) env[name] = httpUrl;
  for (const name of SOCKS_PROXY_NAMES) env[name] = socksUrl;
  for (const name of NO_PROXY_NAMES) env[name] = allowLocalBinding ? NO_PROXY_LOCAL : "";
  env.CODEX_NETWORK_PROXY_ACTIVE = "1";
  env.CODEX_NETWORK_ALLOW_LOCAL_BINDING = allowLocalBinding ? "1" : "0";
  // Node's built-in clients honour the *_PROXY variables only with this.
  env.NODE_USE_ENV_PROXY = "1";
  env.ELECTRON_GET_USE_PROXY = "true";
  return env;
}

/**
 * `env` without the proxy's variables: for a command approved to run unsandboxed, whose
 * network is the host's (a leftover HTTP_PROXY would point at a listener it cannot use).
 */
export function stripProxyEnvironment<V>(env: Readonly<Record<string, V>>): Record<string, V> {
  const names = new Set(PROXY_ENVIRONMENT_NAMES);
  return Object.fromEntries(Object.entries(env).filter(([name]) => !names.has(name)));
}
