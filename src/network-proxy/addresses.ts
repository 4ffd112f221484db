/**
 * Which resolved addresses count as local or private for the proxy's local guard: loopback,
 * RFC 1918, CGNAT (100.64/10), link-local, unspecified, IPv6 unique-local (fc00::/7). Node's
 * BlockList also matches an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) against the IPv4 rules.
 */
import { BlockList, isIPv4, isIPv6 } from "node:net";

const LOCAL = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
] as const) {
  LOCAL.addSubnet(network, prefix, "ipv4");
}
LOCAL.addAddress("::", "ipv6");
LOCAL.addAddress("::1", "ipv6");
LOCAL.addSubnet("fc00::", 7, "ipv6");
LOCAL.addSubnet("fe80::", 10, "ipv6");

/** True for an address the local guard refuses; an unparsable one counts as local (fail closed). */
export function isLocalAddress(address: string): boolean {
  if (isIPv4(address)) return LOCAL.check(address, "ipv4");
  if (isIPv6(address)) return LOCAL.check(address, "ipv6");
  return true;
}
