/**
 * The resource every signal carries: who exports (service name and version), where
 * (`host.name`), for which environment (Codex's `env`, and the semconv
 * `deployment.environment.name`), plus the SDK's own `telemetry.sdk.*`.
 */
import { hostname } from "node:os";
import type { Resource } from "@opentelemetry/resources";
import { VERSION } from "../version.js";

export async function telemetryResource(serviceName: string, environment: string): Promise<Resource> {
  const { defaultResource, resourceFromAttributes } = await import("@opentelemetry/resources");
  // defaultResource() holds telemetry.sdk.*; its service.name fallback is overridden by ours.
  return defaultResource().merge(
    resourceFromAttributes({
      "service.name": serviceName,
      "service.version": VERSION,
      "deployment.environment.name": environment,
      env: environment,
      "host.name": hostname(),
    }),
  );
}
