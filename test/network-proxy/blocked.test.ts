/** What a block says: the header per reason, the 403 JSON body, and the sentence the model reads. */
import { describe, expect, it } from "vitest";
import { blockJsonBody, blockTextBody } from "../../src/network-proxy/blocked.js";
import { describeBlock, PROXY_ERROR_HEADER, type ProxyBlock } from "../../src/network-proxy/index.js";

const block = (reason: ProxyBlock["reason"], extra: Partial<ProxyBlock> = {}): ProxyBlock => ({
  host: "other.bar.test",
  port: 18720,
  protocol: "http",
  reason,
  ...extra,
});

describe("blocked responses", () => {
  it("names each reason in x-proxy-error (blocked-by-policy for local addresses, not Codex's allowlist)", () => {
    expect(PROXY_ERROR_HEADER).toEqual({
      not_allowed: "blocked-by-allowlist",
      denied: "blocked-by-denylist",
      not_allowed_local: "blocked-by-policy",
      method_not_allowed: "blocked-by-method-policy",
      mitm_required: "blocked-by-mitm-required",
    });
  });

  it("writes Codex's one-line JSON body", () => {
    expect(blockJsonBody(block("not_allowed"))).toBe(
      '{"status":"blocked","host":"other.bar.test","reason":"not_allowed","decision":"deny","source":"baseline_policy","protocol":"http","port":18720,"message":"Domain not in allowlist."}',
    );
    expect(JSON.parse(blockJsonBody(block("method_not_allowed", { method: "POST" })))).toMatchObject({
      reason: "method_not_allowed",
      source: "mode_guard",
      message: "Method not allowed in limited mode.",
    });
    expect(JSON.parse(blockJsonBody(block("not_allowed_local")))).toMatchObject({
      source: "baseline_policy",
      message: "Sandbox policy blocks local/private network addresses.",
    });
    expect(blockTextBody(block("not_allowed"))).toBe("Domain not in allowlist.");
  });
});

describe("describeBlock", () => {
  it("says Codex's sentence for a host off the allowlist", () => {
    expect(describeBlock(block("not_allowed"))).toBe(
      'Network access to "other.bar.test" was blocked: domain is not on the allowlist for the current sandbox mode.',
    );
  });

  it("says why for every other reason", () => {
    expect(describeBlock(block("denied"))).toBe(
      'Network access to "other.bar.test" was blocked: domain is on the deny list of the sandbox\'s network policy.',
    );
    expect(describeBlock(block("not_allowed_local"))).toBe(
      'Network access to "other.bar.test" was blocked: it resolves to a local or private address and allow_local_binding is off.',
    );
    expect(describeBlock(block("method_not_allowed", { method: "POST" }))).toBe(
      'Network access to "other.bar.test" was blocked: method POST is not allowed in limited mode (only GET, HEAD and OPTIONS).',
    );
    expect(describeBlock(block("mitm_required", { protocol: "https", port: 443 }))).toBe(
      'Network access to "other.bar.test" was blocked: HTTPS (CONNECT) cannot be inspected in limited mode, which allows only plain HTTP GET, HEAD and OPTIONS.',
    );
    expect(describeBlock(block("mitm_required", { protocol: "socks5Tcp" }))).toContain(
      "a SOCKS5 connection cannot",
    );
  });
});
