/**
 * The proxy's request log shows the controls of a request's path (issue 37): Hono decodes
 * `%1B` in a path to ESC, and a client's `GET /%1B]2;pwned%07` retitled the operator's terminal
 * through the log line on stderr.
 */
import { describe, expect, it } from "vitest";
import { waitFor } from "../support/processes.js";
import { useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness();

describe("proxy request log", () => {
  it("shows a percent-encoded escape in a path as caret notation, never as the raw control", async () => {
    const proxy = await h.startProxy();
    const origin = new URL(proxy.url).origin;
    const response = await fetch(`${origin}/v1/%1B]2;pwned%07%0D%C2%9B2J`);
    await response.arrayBuffer();
    await waitFor(() => proxy.stderr().includes("pwned"));
    const line =
      proxy
        .stderr()
        .split("\n")
        .find((entry) => entry.includes("pwned")) ?? "";
    expect(line).toContain("/v1/^[]2;pwned^G^M<U+009B>2J");
    for (const control of ["\u001b", "\u0007", "\r", "\u009b"]) expect(line).not.toContain(control);
  });
});
