/**
 * The proxy's default name resolution: a hosts-format file named by $TSCODEX_PROXY_HOSTS_FILE
 * first (so tests, including spawned processes, give names of their own without /etc/hosts or
 * the internet), then the system resolver (`dns.lookup`, which reads /etc/hosts and DNS).
 */
import { lookup } from "node:dns/promises";
import { readFile, stat } from "node:fs/promises";
import { isIP } from "node:net";
import type { ResolveHost } from "./types.js";

export const HOSTS_FILE_ENV = "TSCODEX_PROXY_HOSTS_FILE";

/** One file's names, kept while its mtime and size stay the same. */
interface HostsCache {
  path: string;
  mtimeMs: number;
  size: number;
  names: Map<string, string[]>;
}

let cache: HostsCache | undefined;

/** `address name [name...]` lines; `#` starts a comment. Names lowercased, addresses in file order. */
export function parseHostsFile(text: string): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const [address, ...aliases] = (line.split("#")[0] ?? "").trim().split(/\s+/);
    if (!address || !isIP(address)) continue;
    for (const alias of aliases) {
      const key = alias.toLowerCase().replace(/\.$/, "");
      names.set(key, [...(names.get(key) ?? []), address]);
    }
  }
  return names;
}

async function hostsFileNames(path: string): Promise<Map<string, string[]>> {
  const info = await stat(path);
  if (cache && cache.path === path && cache.mtimeMs === info.mtimeMs && cache.size === info.size) {
    return cache.names;
  }
  const names = parseHostsFile(await readFile(path, "utf8"));
  cache = { path, mtimeMs: info.mtimeMs, size: info.size, names };
  return names;
}

/** The default resolver: the hosts file of $TSCODEX_PROXY_HOSTS_FILE when set, then dns.lookup. */
export const defaultResolveHost: ResolveHost = async (host) => {
  const path = process.env[HOSTS_FILE_ENV];
  if (path) {
    const found = (await hostsFileNames(path)).get(host);
    if (found) return found;
  }
  const results = await lookup(host, { all: true, verbatim: true });
  return results.map((result) => result.address);
};
