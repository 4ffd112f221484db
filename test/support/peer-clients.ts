/**
 * Callers of a key-less local server that are not the test process itself: a client running as
 * another user (spawned with `uid`/`gid`, so only when the tests run as root), and a flood of
 * requests from a local process that holds thousands of open files (the /proc scan's worst case).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { requireProgram } from "./skips.js";

/** A uid/gid no account on the machine uses. */
export const OTHER_UID = 12345;

/** True (and says why on stderr) when the tests cannot spawn a process as another user. */
export function notRoot(what: string): boolean {
  if (process.getuid?.() === 0) return false;
  console.warn(`skipped ${what}: spawning a client as another user needs root (CI runs as root)`);
  return true;
}

/** What a client got: the status code (or the error it met) and the body. */
export interface Answer {
  status: string;
  body: string;
}

/**
 * What a request to `url` gets from a `node -e` client running as `uid` (and gid = uid): a
 * WebSocket upgrade (status `101` when accepted) or a plain GET.
 */
export async function answerAs(uid: number, url: string, kind: "upgrade" | "get"): Promise<Answer> {
  const httpUrl = url.replace(/^ws:/, "http:");
  const headers =
    kind === "upgrade"
      ? {
          Connection: "Upgrade",
          Upgrade: "websocket",
          "Sec-WebSocket-Version": "13",
          "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        }
      : {};
  const script = `
    const print = (status, body) => { console.log(JSON.stringify({ status: String(status), body })); process.exit(0); };
    const req = require("node:http").get(${JSON.stringify(httpUrl)}, { headers: ${JSON.stringify(headers)} });
    req.on("upgrade", (res) => print(res.statusCode, ""));
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk) => { body += chunk; });
      res.on("end", () => print(res.statusCode, body));
    });
    req.on("error", (e) => print(String(e), ""));`;
  const child = spawn(process.execPath, ["-e", script], {
    cwd: "/",
    uid,
    gid: uid,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
  });
  await once(child, "close");
  try {
    return JSON.parse(out) as Answer;
  } catch {
    throw new Error(`the client as uid ${uid} printed no answer: ${out}${err}`);
  }
}

/** The status code alone (see answerAs). */
export async function statusAs(uid: number, url: string, kind: "upgrade" | "get"): Promise<string> {
  return (await answerAs(uid, url, kind)).status;
}

/** A local process holding many open files while its requests wait on a server. */
export interface FdHog {
  child: ChildProcess;
  /** Kills it; resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * python3 (this user, unconfined) raises its file limit, opens /dev/null `files` times, then sends
 * `requests` WebSocket upgrades (`upgrade`) or GETs (`get`) to `url` at once without reading the
 * answers; resolves once every request is written (the server is checking them).
 */
export async function startFdHog(
  url: string,
  options: { files: number; requests: number; kind: "upgrade" | "get" },
): Promise<FdHog> {
  const { hostname, port, pathname } = new URL(url.replace(/^ws:/, "http:"));
  const extra =
    options.kind === "upgrade"
      ? "Connection: Upgrade\\r\\nUpgrade: websocket\\r\\nSec-WebSocket-Version: 13\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n"
      : "";
  const path = options.kind === "get" ? `${pathname.replace(/\/$/, "")}/models` : "/";
  const script = `
import resource, socket, sys
need = ${options.files} + ${options.requests} + 64
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), max(hard, need)))
files = [open("/dev/null") for _ in range(${options.files})]
conns = []
for _ in range(${options.requests}):
    s = socket.create_connection((${JSON.stringify(hostname)}, ${port}))
    conns.append(s)
request = "GET ${path} HTTP/1.1\\r\\nHost: ${hostname}:${port}\\r\\n${extra}\\r\\n".encode()
for s in conns:
    s.sendall(request)
print("ready", flush=True)
sys.stdin.read()
`;
  requireProgram("python3");
  const child = spawn("python3", ["-c", script], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = once(child, "exit");
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      if (chunk.includes("ready")) resolve();
    });
    void exited.then(() => reject(new Error(`the fd hog exited before it was ready: ${stderr}`)));
  });
  return {
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
