/**
 * A process with the shared network proxy, for test/network-proxy/lifecycle.test.ts: prints
 * `{dir, same, httpPort}` as one JSON line, then closes its route when stdin ends and exits
 * naturally (so the exit hook, not this script, removes the proxy's directory).
 * Run: node scripts/run-ts.mjs test/network-proxy/shared-proxy-child.ts
 */
import { sharedNetworkProxy } from "../../src/network-proxy/index.js";

const proxy = await sharedNetworkProxy();
const again = await sharedNetworkProxy();
const route = await proxy.openRoute(
  {
    mode: "full",
    domains: [{ pattern: "*.bar.test", action: "allow" }],
    allowLocalBinding: true,
    unixSockets: [],
  },
  { listen: "tcp" },
);
process.stdout.write(
  `${JSON.stringify({ dir: proxy.dir, same: proxy === again, httpPort: route.http.port })}\n`,
);
process.stdin.resume();
process.stdin.once("end", () => {
  void route.close();
  process.stdin.pause();
});
