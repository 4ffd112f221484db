/**
 * The client side of an ACP agent process (the SDK's `client()` over the child's stdio): every
 * `session/update` and `session/request_permission` recorded, permissions answered by a
 * callback (default: the first allow_once option), and, when given, the editor's files
 * (`fs/read_text_file`, `fs/write_text_file`) served from the test. Used for codex-acp
 * (test/support/codex-acp.ts) and for `tscodex acp` itself.
 */
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";
import {
  type ClientConnection,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";

export interface AcpClientOptions {
  /** The client's answer to `session/request_permission` (default: the first allow_once option). */
  onPermission?: (
    request: RequestPermissionRequest,
  ) => RequestPermissionResponse | Promise<RequestPermissionResponse>;
  /** Extension requests the client answers (`_tscodex/client_tool_call`), by method. */
  extensions?: Record<string, (params: unknown) => unknown>;
  /** The editor's files: `fs/read_text_file` and `fs/write_text_file` answered from these. */
  files?: {
    read(path: string): string | null;
    write(path: string, content: string): void;
  };
}

export interface AcpProcess {
  readonly child: ChildProcess;
  readonly connection: ClientConnection;
  readonly agent: ClientConnection["agent"];
  /** Every `session/update` received, in order. */
  readonly updates: SessionNotification[];
  /** Every `session/request_permission` received, in order. */
  readonly permissions: RequestPermissionRequest[];
  /** What the agent wrote on stderr. */
  stderr(): string;
  /** Resolves with the first update that `match` accepts (received before or after the call). */
  waitForUpdate(
    match: (update: SessionNotification) => boolean,
    timeoutMs?: number,
  ): Promise<SessionNotification>;
  /** Close the connection and stdin, and wait for the process to exit (SIGKILL after 10 s). */
  close(): Promise<void>;
}

/** Connects the SDK's client side to `child`'s stdio. */
export function acpClientOf(child: ChildProcess, options: AcpClientOptions = {}): AcpProcess {
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = once(child, "exit");
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const waiters = new Set<() => void>();
  const app = client()
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
      for (const wake of waiters) wake();
    })
    .onRequest("session/request_permission", ({ params }) => {
      permissions.push(params);
      if (options.onPermission) return options.onPermission(params);
      const allow = params.options.find((option) => option.kind === "allow_once");
      return allow
        ? { outcome: { outcome: "selected", optionId: allow.optionId } }
        : { outcome: { outcome: "cancelled" } };
    });
  for (const [method, handler] of Object.entries(options.extensions ?? {}))
    app.onRequest(
      method,
      (params: unknown) => params,
      ({ params }) => handler(params),
    );
  const { files } = options;
  if (files)
    app
      .onRequest("fs/read_text_file", ({ params }) => {
        const content = files.read(params.path);
        if (content === null) throw new Error(`no such file: ${params.path}`);
        return { content };
      })
      .onRequest("fs/write_text_file", ({ params }) => {
        files.write(params.path, params.content);
        return {};
      });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  return {
    child,
    connection,
    agent: connection.agent,
    updates,
    permissions,
    stderr: () => stderr,
    waitForUpdate(match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = updates.find(match);
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching session/update in ${timeoutMs} ms; stderr:\n${stderr}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      connection.close();
      child.stdin?.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
