/**
 * The scaffolding of the `tscodex proxy` tests: one fake model server per file (reset before
 * each test), a fresh TSCODEX_HOME whose config.toml points at it and a work dir per test, and
 * real proxy processes (`node bin/tscodex.js proxy --port 0 …`) stopped after each test.
 *
 * ```ts
 * const h = useProxyHarness();
 * it("answers", async () => {
 *   const proxy = await h.startProxy();
 *   h.model.enqueue(turn(message("hi")));
 *   const response = await proxy.client().responses.create({ model: "m", input: "hello" });
 * });
 * ```
 */
import type { ChildProcess } from "node:child_process";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { writeFakeConfig } from "./cli.js";
import { type FakeModelServer, startFakeModelServer } from "./fake-model-server.js";
import { spawnListening } from "./listening-server.js";
import { type TempDir, tmpdir } from "./tmpdir.js";

export interface ProxyProcess {
  /** e.g. http://127.0.0.1:41234/v1 */
  url: string;
  child: ChildProcess;
  /** Everything the proxy wrote on stderr so far. */
  stderr(): string;
  /** An SDK client for this proxy (key: the given one, else "unused"). */
  client(options?: { apiKey?: string; maxRetries?: number }): OpenAI;
  /** SIGTERM, then resolves once the process exited. */
  stop(): Promise<void>;
}

export interface ProxyHarness {
  readonly model: FakeModelServer;
  readonly home: string;
  readonly work: string;
  /** Spawn `tscodex proxy --port 0 [args]` on this test's home; stopped after the test. */
  startProxy(args?: string[], env?: Record<string, string>): Promise<ProxyProcess>;
}

export function useProxyHarness(options: { extraConfig?: string } = {}): ProxyHarness {
  let model: FakeModelServer | undefined;
  let home: TempDir | undefined;
  let work: TempDir | undefined;
  const started: ProxyProcess[] = [];
  const need = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`proxy harness: no ${name} outside a test`);
    return value;
  };
  beforeAll(async () => {
    model = await startFakeModelServer();
  });
  afterAll(async () => {
    await model?.close();
  });
  beforeEach(async () => {
    need(model, "model server").reset();
    home = await tmpdir("tscodex-proxy-home-");
    work = await tmpdir("tscodex-proxy-work-");
    await writeFakeConfig(home.path, {
      baseUrl: need(model, "model server").url,
      extra: options.extraConfig,
    });
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((proxy) => proxy.stop()));
    await home?.cleanup();
    await work?.cleanup();
  });
  return {
    get model() {
      return need(model, "model server");
    },
    get home() {
      return need(home, "home").path;
    },
    get work() {
      return need(work, "work dir").path;
    },
    async startProxy(args = [], env = {}) {
      const proxy = await spawnProxy(need(home, "home").path, need(work, "work dir").path, args, env);
      started.push(proxy);
      return proxy;
    },
  };
}

export async function spawnProxy(
  home: string,
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<ProxyProcess> {
  const proxy = await spawnListening(
    ["proxy", "--port", "0", ...args],
    { home, cwd, env },
    {
      what: "proxy",
      timeoutMs: 10_000,
    },
  );
  return {
    ...proxy,
    client: (opts = {}) =>
      new OpenAI({ baseURL: proxy.url, apiKey: opts.apiKey ?? "unused", maxRetries: opts.maxRetries ?? 0 }),
  };
}

/** A proxy's JSON answer as a keyed-request test reads it. */
export interface KeyedAnswer {
  status: number;
  /** The `Idempotent-Replayed` header (null when absent). */
  replayed: string | null;
  body: Record<string, unknown> & {
    id?: string;
    status?: string;
    output?: { type?: string }[];
    error?: { code?: string; message?: string };
  };
}

/** POST `body` as JSON to `${url}${path}`, with `Idempotency-Key: key` unless key is null. */
export async function postKeyed(
  url: string,
  path: string,
  body: object,
  key: string | null,
): Promise<KeyedAnswer> {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key === null ? {} : { "idempotency-key": key }) },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    replayed: response.headers.get("idempotent-replayed"),
    body: (await response.json()) as KeyedAnswer["body"],
  };
}
