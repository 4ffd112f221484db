/** The child's proxy environment: exactly Codex's 34 variables (fixture), and their removal. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  PROXY_ENVIRONMENT_NAMES,
  proxyEnvironment,
  stripProxyEnvironment,
} from "../../src/network-proxy/index.js";

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/network-proxy/child-environment.json", import.meta.url), "utf8"),
) as { noProxyFamily: string[]; allowLocalBinding: Record<string, string> };

/** The fixture's variables for these ports and local-binding setting. */
function expected(httpPort: number, socksPort: number, allowLocalBinding: boolean): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, template] of Object.entries(fixture.allowLocalBinding)) {
    env[name] = template.replace("<H>", String(httpPort)).replace("<S>", String(socksPort));
  }
  if (!allowLocalBinding) {
    for (const name of fixture.noProxyFamily) env[name] = "";
    env.CODEX_NETWORK_ALLOW_LOCAL_BINDING = "0";
  }
  return env;
}

describe("proxyEnvironment", () => {
  it("sets exactly the 34 variables of Codex, local binding allowed", () => {
    expect(Object.keys(fixture.allowLocalBinding)).toHaveLength(34);
    expect(proxyEnvironment({ httpPort: 43681, socksPort: 45083 }, true)).toEqual(
      expected(43681, 45083, true),
    );
  });

  it("empties the NO_PROXY family and says 0 when local binding is off", () => {
    const env = proxyEnvironment({ httpPort: 1111, socksPort: 2222 }, false);
    expect(env).toEqual(expected(1111, 2222, false));
    expect(env.NO_PROXY).toBe("");
    expect(Object.keys(env)).toHaveLength(34);
  });

  it("lists the same names it sets", () => {
    expect([...PROXY_ENVIRONMENT_NAMES].sort()).toEqual(Object.keys(fixture.allowLocalBinding).sort());
  });
});

describe("stripProxyEnvironment", () => {
  it("removes every proxy variable and keeps the rest, without touching its argument", () => {
    const env: Record<string, string> = {
      PATH: "/usr/bin",
      HOME: "/root",
      YARN_NO_PROXY: "x",
      ...proxyEnvironment({ httpPort: 1, socksPort: 2 }, true),
    };
    const stripped = stripProxyEnvironment(env);
    expect(stripped).toEqual({ PATH: "/usr/bin", HOME: "/root", YARN_NO_PROXY: "x" });
    expect(env.HTTP_PROXY).toBe("http://127.0.0.1:1");
  });
});
