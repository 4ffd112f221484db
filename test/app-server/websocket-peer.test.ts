/**
 * Who a key-less `app-server --listen ws://` serves (issue 37, causes 5 and 9): only processes of
 * its own user (a root server reached by another user's client ran that user's commands as root),
 * and the check stays quick while a local process with thousands of open files floods it.
 */
import { describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { notRoot, OTHER_UID, startFdHog, statusAs } from "../support/peer-clients.js";

const h = useAppServerHarness();

describe("a key-less app-server WebSocket listener", () => {
  it.skipIf(notRoot("the other-user WebSocket check"))(
    "refuses an upgrade from another user's process (403) and accepts its own user's",
    async () => {
      const server = await h.wsServer();
      expect(await statusAs(OTHER_UID, server.url, "upgrade")).toBe("403");
      expect(await statusAs(0, server.url, "upgrade")).toBe("101");
      // With a key, the key decides: another user holding it is served.
      const keyed = await h.wsServer(["--api-key-env", "APP_KEY"], { APP_KEY: "k-1" });
      expect(await statusAs(OTHER_UID, keyed.url, "upgrade")).toBe("401");
    },
  );

  it("answers a client quickly while a process holding 6,000 files sends 200 upgrades", async () => {
    const server = await h.wsServer();
    const hog = await startFdHog(server.url, { files: 6000, requests: 200, kind: "upgrade" });
    h.defer({ close: () => hog.stop() });
    const started = performance.now();
    const client = await server.connect();
    const elapsed = performance.now() - started;
    h.defer(client);
    console.info(`upgrade answered in ${Math.round(elapsed)} ms during the flood`);
    expect(elapsed).toBeLessThan(2000);
    expect((await client.initialize()).result.userAgent).toContain("tscodex-test");
  });
});
