/**
 * The network proxy in a process of its own, for bench/network-proxy.ts: one TCP route allowing
 * `*.bench.test` (names → 127.0.0.1, local binding allowed); prints `{httpPort, socksPort}`
 * as one JSON line and runs until killed.
 */
import { startNetworkProxy } from "../../src/network-proxy/index.js";

const proxy = await startNetworkProxy({ resolveHost: async () => ["127.0.0.1"] });
const route = await proxy.openRoute(
  {
    mode: "full",
    domains: [{ pattern: "*.bench.test", action: "allow" }],
    allowLocalBinding: true,
    unixSockets: [],
  },
  { listen: "tcp" },
);
process.stdout.write(`${JSON.stringify({ httpPort: route.http.port, socksPort: route.socks.port })}\n`);
process.once("SIGTERM", () => {
  void proxy.close().then(() => process.exit(0));
});
