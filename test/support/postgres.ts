/**
 * A throwaway PostgreSQL cluster for tests: `initdb` in a temp dir, `postgres` on a free port of
 * 127.0.0.1 (trust auth; no fsync unless `durable`: nothing here must survive a crash of the
 * machine), removed on stop. PostgreSQL refuses to run as root, so under root the cluster runs as `nobody`.
 * One cluster per test file (beforeAll); each test takes its own database (`createDatabase`).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const HINT = "apt-get install postgresql, as .ci/run does";
const USER = "tscodex";

export interface PostgresCluster {
  /** URL of database `db` (default "postgres"). */
  url(db?: string): string;
  /** A new empty database; returns its URL. */
  createDatabase(): Promise<string>;
  /** Run SQL as the superuser in database `db` (psql, one statement per call is safest). */
  psql(sql: string, db?: string): string;
  /** Stop the server but keep its data (an outage); `startServer` brings it back on the same port. */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** Stop the server and remove the cluster. */
  stop(): Promise<void>;
}

/** The directory holding initdb, postgres and psql, or null. */
export function postgresBinDir(): string | null {
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim());
  } catch {
    // no pg_config: look where Debian installs the server
  }
  try {
    const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => join("/usr/lib/postgresql", version, "bin")));
  } catch {
    // not Debian's layout
  }
  candidates.push(...(process.env.PATH ?? "").split(":").filter(Boolean));
  const needed = ["initdb", "postgres", "psql"];
  return candidates.find((dir) => needed.every((name) => existsSync(join(dir, name)))) ?? null;
}

/** True (and says why on stderr) when no PostgreSQL server binaries are installed. */
export function noPostgres(what: string): boolean {
  if (postgresBinDir()) return false;
  console.warn(`skipped ${what}: no PostgreSQL server binaries (initdb, postgres, psql) found (${HINT})`);
  return true;
}

/** Unprivileged ids to run the server as when we are root (PostgreSQL refuses root). */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  return { uid: 65534, gid: 65534 };
}

export interface ClusterOptions {
  /** Keep PostgreSQL's crash safety (fsync, full page writes), for benchmarks; tests go without. */
  durable?: boolean;
}

export async function startPostgres(options: ClusterOptions = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(`no PostgreSQL server binaries found (${HINT})`);
  const dir = await mkdtemp(join(tmpdir(), "tscodex-pg-"));
  const ids = runAs();
  if (ids) await chown(dir, ids.uid, ids.gid);
  const data = join(dir, "data");
  const spawnOptions = { cwd: dir, ...(ids ?? {}), env: { ...process.env, LC_ALL: "C" } };
  try {
    execFileSync(
      join(bin, "initdb"),
      ["-D", data, "-U", USER, "--auth=trust", "--no-sync", "--locale=C", "--encoding=UTF8"],
      { ...spawnOptions, stdio: ["ignore", "ignore", "pipe"] },
    );
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const port = await freePort();
  let server: ChildProcess | null = null;
  let databases = 0;

  const startServer = async () => {
    const child = spawn(
      join(bin, "postgres"),
      [
        ...["-D", data, "-p", String(port), "-k", dir],
        ...["-c", "listen_addresses=127.0.0.1"],
        ...(options.durable ? [] : ["-c", "fsync=off", "-c", "full_page_writes=off"]),
        ...["-c", "max_connections=200", "-c", "shared_buffers=16MB"],
      ],
      { ...spawnOptions, stdio: ["ignore", "ignore", "pipe"] },
    );
    server = child;
    await new Promise<void>((resolve, reject) => {
      let log = "";
      const onData = (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes("database system is ready to accept connections")) {
          child.stderr?.off("data", onData);
          child.stderr?.resume(); // keep draining the log so the server never blocks on it
          child.off("exit", onExit);
          resolve();
        }
      };
      const onExit = (code: number | null) =>
        reject(new Error(`postgres exited (${code}) before it was ready:\n${log}`));
      child.stderr?.on("data", onData);
      child.once("exit", onExit);
    });
  };

  const stopServer = async () => {
    const child = server;
    server = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGINT"); // fast shutdown: ends every session
    await exited;
  };

  const url = (db = "postgres") => `postgres://${USER}@127.0.0.1:${port}/${db}`;
  const psql = (sql: string, db = "postgres") =>
    execFileSync(join(bin, "psql"), ["-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", url(db), "-c", sql], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      // The soak's store check reads every line of a 10-minute run (over the 1 MiB default).
      maxBuffer: 256 * 1024 * 1024,
    });

  try {
    await startServer();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    psql,
    async createDatabase() {
      databases += 1;
      const name = `t${databases}`;
      psql(`CREATE DATABASE ${name}`);
      return url(name);
    },
    stopServer,
    startServer,
    async stop() {
      await stopServer();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A port nobody listens on right now (the server binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
