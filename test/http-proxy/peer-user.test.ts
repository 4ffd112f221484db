/**
 * Who a key-less `tscodex proxy` serves (issue 37, causes 5 and 9): only processes of its own
 * user (another user's client refused with a 403 in OpenAI's error shape), and the check stays
 * quick while a local process with thousands of open files floods it.
 */
import { describe, expect, it } from "vitest";
import { answerAs, notRoot, OTHER_UID, startFdHog, statusAs } from "../support/peer-clients.js";
import { useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness();

describe("a key-less proxy", () => {
  it.skipIf(notRoot("the other-user proxy check"))(
    "refuses another user's process (403, forbidden_caller) and serves its own user's",
    async () => {
      const proxy = await h.startProxy();
      expect(await statusAs(OTHER_UID, `${proxy.url}/models`, "get")).toBe("403");
      expect(await statusAs(0, `${proxy.url}/models`, "get")).toBe("200");
      const keyed = await h.startProxy(["--api-key-env", "PROXY_KEY"], { PROXY_KEY: "k-2" });
      expect(await statusAs(OTHER_UID, `${keyed.url}/models`, "get")).toBe("401");
    },
  );

  it.skipIf(notRoot("the other-user proxy check"))(
    "tells the other user why, in OpenAI's error shape",
    async () => {
      const proxy = await h.startProxy();
      const answer = await answerAs(OTHER_UID, `${proxy.url}/models`, "get");
      expect(answer.status).toBe("403");
      expect(JSON.parse(answer.body)).toMatchObject({
        error: { code: "forbidden_caller", message: expect.stringMatching(/another user/) },
      });
    },
  );

  it("answers a client quickly while a process holding 6,000 files sends 200 requests", async () => {
    const proxy = await h.startProxy();
    const hog = await startFdHog(proxy.url, { files: 6000, requests: 200, kind: "get" });
    try {
      const started = performance.now();
      const response = await fetch(`${proxy.url}/models`);
      const elapsed = performance.now() - started;
      console.info(`GET /models answered in ${Math.round(elapsed)} ms during the flood`);
      expect(response.status).toBe(200);
      expect(elapsed).toBeLessThan(2000);
    } finally {
      await hog.stop();
    }
  });
});
