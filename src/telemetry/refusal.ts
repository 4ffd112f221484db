/**
 * A collector that refuses connections is not worth waiting for: the OTLP HTTP exporters retry a
 * refused export with backoff until their timeout, which would hold exec's exit for seconds with
 * the collector down (Codex exits as fast as without export). At flush and shutdown each
 * exporter's wait is raced with one TCP connect to its endpoint; "refused" ends the wait at once.
 */
import { connect } from "node:net";
import type { OtelExporterSetting } from "../config/otel.js";

/** Resolves once `setting`'s endpoint refuses a connection; stays pending otherwise (or after `ms`). */
export function whenRefused(setting: OtelExporterSetting, ms: number): Promise<void> {
  if (setting.kind === "none") return new Promise(() => {});
  let url: URL;
  try {
    url = new URL(setting.endpoint);
  } catch {
    return new Promise(() => {});
  }
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : url.protocol === "http:" ? 80 : 4317);
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ""), port });
    socket.unref();
    socket.setTimeout(ms, () => socket.destroy());
    socket.on("connect", () => socket.destroy());
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNREFUSED") resolve();
    });
  });
}
