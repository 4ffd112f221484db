/**
 * The clients of the soak bench (bench/soak.ts): each runs client-tool conversations against
 * whichever proxy process it picks, as an app behind a load balancer would. A conversation is two
 * steps: the question (non-streamed, with an Idempotency-Key), answered by a `get_weather`
 * function call; then the tool's output (keyed and non-streamed, or streamed without a key),
 * answered by a message. A step that meets a dropped connection, a 5xx, a 429 or a 409 "still
 * running" is retried on the next process (same key), up to a bound. Some answered keyed steps
 * are sent again on purpose: the replay must carry the same response.
 * Every try's outcome is counted by kind; every step's latency (retries included) is kept with
 * the phase it started in.
 */
import { WEATHER } from "../../test/support/weather-tool.js";

/** Where the clients send: the URL of each proxy slot now (a restarted process has a new one). */
export interface ProxyPool {
  url(slot: number): string;
  readonly size: number;
}

/** One step as the client saw it. */
export interface StepRecord {
  phase: string;
  ok: boolean;
  ms: number;
  /** The token of the step's stored item: the question's `[cXnY]`, or the output's call id. */
  item: string;
  /** Tries beyond the first. */
  retries: number;
}

export interface SoakStats {
  steps: StepRecord[];
  /** Outcomes of tries that did not answer the step, by kind (plus "replayed" checks). */
  kinds: Map<string, number>;
}

const CITIES = ["Rome", "Oslo", "Lima", "Pune", "Kyiv", "Doha"];
const STEP_DEADLINE_MS = 60_000;
const MAX_TRIES = 40;
/** Share of answered keyed steps sent again on purpose. */
const REPLAY_SHARE = 0.1;
/** Share of tool outputs sent streamed (which takes no key). */
const STREAMED_SHARE = 0.3;

interface Try {
  status: number;
  /** The response object (non-streamed body, or the stream's final response). */
  response: { id?: string; status?: string; output?: { type?: string; call_id?: string }[] } | null;
  text: string;
  replayed: boolean;
  code: string | null;
}

/** The text an answer's messages carry. */
function outputText(response: Try["response"]): string {
  return JSON.stringify(response?.output ?? []);
}

async function post(url: string, body: object, key: string | null, stream: boolean): Promise<Try> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers["idempotency-key"] = key;
  const res = await fetch(`${url}/responses`, {
    method: "POST",
    headers,
    body: JSON.stringify(stream ? { ...body, stream: true } : body),
    signal: AbortSignal.timeout(STEP_DEADLINE_MS),
  });
  const text = await res.text();
  let response: Try["response"] = null;
  let code: string | null = null;
  if (stream && res.status === 200) {
    // The final event carries the whole response.
    const final = text
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as { type?: string; response?: Try["response"] })
      .find((event) => event.type === "response.completed" || event.type === "response.failed");
    response = final?.response ?? null;
  } else {
    try {
      const parsed = JSON.parse(text) as Try["response"] & { error?: { code?: string } };
      if (res.status === 200) response = parsed;
      code = parsed?.error?.code ?? null;
    } catch {
      // not JSON: counted by its status
    }
  }
  return {
    status: res.status,
    response,
    text,
    replayed: res.headers.get("idempotent-replayed") === "true",
    code,
  };
}

/** Why a try did not answer its step, or null when it did. */
function failureKind(result: Try): string | null {
  if (result.status === 200) return result.response?.status === "completed" ? null : "200 but turn failed";
  return `${result.status} ${result.code ?? "no code"}`;
}

/** Whether another try could get the answer. */
function retryable(result: Try): boolean {
  if (result.status >= 500 || result.status === 429) return true;
  return result.status === 409 && (result.code === "idempotency_key_in_use" || result.code === "thread_busy");
}

export class SoakClient {
  private conversations = 0;
  private next: number;

  constructor(
    private readonly id: number,
    private readonly pool: ProxyPool,
    private readonly stats: SoakStats,
    private readonly phase: () => string,
    private readonly runId: string,
  ) {
    this.next = id;
  }

  private count(kind: string): void {
    this.stats.kinds.set(kind, (this.stats.kinds.get(kind) ?? 0) + 1);
  }

  /** Conversations until `running()` says stop. */
  async run(running: () => boolean): Promise<void> {
    while (running()) await this.conversation();
  }

  private async conversation(): Promise<void> {
    const token = `c${this.id}n${this.conversations++}`;
    const city = CITIES[(this.id + this.conversations) % CITIES.length] as string;
    const question = { model: "m", input: `weather in ${city}? [${token}]`, tools: [WEATHER] };
    const first = await this.step(question, `${this.runId}-${token}-q`, false, token, (r) =>
      (r.response?.output ?? []).some(
        (item) => item.type === "function_call" && item.call_id === `call_${token}`,
      ),
    );
    if (!first?.id) return;
    const streamed = Math.random() < STREAMED_SHARE;
    const answer = {
      model: "m",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: `call_${token}`, output: "21C" }],
      tools: [WEATHER],
    };
    await this.step(answer, streamed ? null : `${this.runId}-${token}-a`, streamed, `call_${token}`, (r) =>
      outputText(r.response).includes(`${city} is 21C`),
    );
  }

  /** One step with its retries; the answer, or null when it never came right. */
  private async step(
    body: object,
    key: string | null,
    stream: boolean,
    item: string,
    right: (result: Try) => boolean,
  ): Promise<Try["response"]> {
    const phase = this.phase();
    const started = performance.now();
    const record = (ok: boolean, retries: number) =>
      this.stats.steps.push({ phase, ok, ms: performance.now() - started, item, retries });
    for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
      const url = this.pool.url(this.next++ % this.pool.size);
      let result: Try;
      try {
        result = await post(url, body, key, stream);
      } catch (error) {
        this.count(`connection: ${(error as { cause?: { code?: string } }).cause?.code ?? String(error)}`);
        await pause(attempt);
        continue;
      }
      // An unkeyed retry whose first try was stored: the answer is the response named.
      if (result.code === "function_call_already_answered" && !key) {
        this.count("409 function_call_already_answered (fetched)");
        result = await this.answeredBy(url, result);
      }
      const kind = failureKind(result);
      if (kind === null && !right(result)) {
        this.count("wrong answer");
        record(false, attempt);
        return null;
      }
      if (kind === null) {
        record(true, attempt);
        if (key && Math.random() < REPLAY_SHARE) await this.replay(body, key, result);
        return result.response;
      }
      // A streamed step has no key: the takeover that answers a keyed retry cannot apply to it.
      this.count(key ? kind : `${kind} (no key)`);
      if (!retryable(result) || performance.now() - started > STEP_DEADLINE_MS) {
        record(false, attempt);
        return null;
      }
      await pause(attempt);
    }
    record(false, MAX_TRIES);
    return null;
  }

  /** GET the response a 409 function_call_already_answered names (the 409 itself when none). */
  private async answeredBy(url: string, conflict: Try): Promise<Try> {
    const id = /by response '([^']+)'/.exec(conflict.text)?.[1];
    if (!id) return conflict;
    try {
      const res = await fetch(`${url}/responses/${id}`, { signal: AbortSignal.timeout(STEP_DEADLINE_MS) });
      const text = await res.text();
      if (res.status !== 200) return { ...conflict, status: res.status, text };
      return {
        status: 200,
        response: JSON.parse(text) as Try["response"],
        text,
        replayed: false,
        code: null,
      };
    } catch {
      return conflict;
    }
  }

  /** The same keyed request again, on another process: the stored answer, marked replayed. */
  private async replay(body: object, key: string, first: Try): Promise<void> {
    const url = this.pool.url(this.next++ % this.pool.size);
    try {
      const again = await post(url, body, key, false);
      if (again.status !== 200) this.count(`replay: ${again.status} ${again.code ?? ""}`.trim());
      else if (again.response?.id !== first.response?.id || !again.replayed)
        this.count("replay: different answer");
      else this.count("replay: same answer (ok)");
    } catch {
      this.count("replay: connection failed");
    }
  }
}

function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 100 * Math.min(attempt + 1, 5)));
}
