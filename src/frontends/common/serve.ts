/**
 * What every long-running server front-end (mcp-server, app-server, proxy) does with its
 * process: survive one client's failure, stop on SIGINT/SIGTERM, and start a network listener
 * that refuses an unsafe bind with a clear message (exit 2).
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { visibleText } from "./terminal-text.js";

/**
 * A crashing turn or tool must not take every other client's threads down with it. The report
 * shows its controls: an error can quote what a client or model sent (terminal-text.ts).
 */
export function guardProcess(name: string): void {
  const report = (error: unknown): void => {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`tscodex ${name}: unexpected error (serving on): ${visibleText(text)}\n`);
  };
  process.on("uncaughtException", report);
  process.on("unhandledRejection", report);
  // stdout is the protocol channel in stdio mode: a closed pipe must not throw later.
  process.stdout.on("error", () => {});
}

/** Resolves on the first SIGINT or SIGTERM. */
export function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
}

/** `message` on stderr as `tscodex NAME: …`; the exit code of a refused start (2). */
export function failStart(name: string, message: string): number {
  process.stderr.write(`tscodex ${name}: ${message}\n`);
  return 2;
}

/** How long shutdown lets in-flight work answer before closing connections anyway. */
export const DRAIN_BOUND_MS = 10_000;

/** A network listener as listenUntil drives it. */
export interface Listener {
  url: string;
  /**
   * Shutdown, first step: take no new sessions or connections, run `finishWork` (which ends
   * running turns), and resolve once the replies it caused are written.
   */
  drain?(finishWork: () => Promise<void>): Promise<void>;
  /** Close whatever is still open. */
  close(): Promise<void>;
}

/**
 * Start a network listener, announce its URL on stderr, serve until `stop`, then drain it
 * (bounded by DRAIN_BOUND_MS) and close it.
 * An unsafe bind (no key beyond loopback) is refused with its message and exit code 2.
 */
export async function listenUntil(
  name: string,
  start: () => Promise<Listener>,
  stop: Promise<void>,
  /** What the start line says about the listener beyond its URL (store, sandbox). */
  serving = "",
  /** Ends the work in flight (interrupts running turns) so that its clients get their replies. */
  finishWork: () => Promise<void> = async () => {},
): Promise<number> {
  let server: Listener;
  try {
    server = await start();
  } catch (error) {
    // Loaded here: a stdio server never needs the network guard's module.
    const { UnsafeBindError } = await import("./http-guard.js");
    if (error instanceof UnsafeBindError) return failStart(name, error.message);
    throw error;
  }
  process.stderr.write(
    `tscodex ${name}: listening on ${server.url} (GET /healthz, /readyz)${serving ? `; ${serving}` : ""}\n`,
  );
  await stop;
  process.stderr.write(`tscodex ${name}: shutting down\n`);
  if (server.drain) {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, DRAIN_BOUND_MS);
    });
    await Promise.race([server.drain(finishWork), bound]);
    clearTimeout(timer);
  }
  await server.close();
  process.stderr.write(`tscodex ${name}: stopped\n`);
  return 0;
}

/** Listen on host:port; resolves with the bound `host:port` as a URL writes it ([::1]:8080). */
export async function listenOn(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return `${host.includes(":") ? `[${host}]` : host}:${bound}`;
}
