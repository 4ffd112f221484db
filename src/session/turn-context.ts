/**
 * What a turn's tools run with (TurnContext): the thread's policies and roots, its shell
 * environment, its resources, the turn's question functions and hooks, and the event sink.
 */

import { LazyTurnDiff } from "../apply-patch/lazy-turn-diff.js";
import type { EditorFiles } from "../protocol/editor-files.js";
import type { Event } from "../protocol/events.js";
import { tmpdirOf } from "../protocol/permission-paths.js";
import type { TurnTelemetry } from "../protocol/telemetry.js";
import type { PermissionQuestion, TurnContext } from "../tools/types.js";
import type { ResourceScope } from "../util/resource-scope.js";
import type { HookPoints } from "./hook-points.js";
import type { ThreadQuestions } from "./questions.js";
import type { ThreadServices } from "./services.js";
import { permissionsOf, type ThreadSettings } from "./settings.js";

export interface TurnContextSources {
  threadId: string;
  settings: ThreadSettings;
  services: ThreadServices;
  resources: ResourceScope;
  questions: ThreadQuestions;
  hooks: HookPoints | null;
  emit(event: Event): void;
  /** Whether anyone listens to output deltas (tools skip making them otherwise). */
  wantsOutputDeltas(): boolean;
  /** The running turn's telemetry (only with `[otel]`). */
  telemetry?: TurnTelemetry | undefined;
  /** The running turn's editor files (TurnOverrides.editorFiles), for that turn only. */
  editorFiles?: EditorFiles | undefined;
}

export function buildTurnContext(
  sources: TurnContextSources,
  turnId: string,
  signal: AbortSignal,
): TurnContext {
  const { settings, services, hooks } = sources;
  const permissions = permissionsOf(settings, tmpdirOf(services));
  return {
    threadId: sources.threadId,
    turnId,
    cwd: settings.cwd,
    approvalPolicy: settings.approvalPolicy,
    permissions: settings.permissions,
    sandboxMode: permissions.sandboxMode,
    networkAccess: permissions.networkAccess,
    writableRoots: permissions.writableRoots,
    shellEnvironment: { env: services.shellEnvironment },
    truncation: services.truncation,
    signal,
    resources: sources.resources,
    ...sources.questions.forTurn(turnId, signal),
    orchestrator: services.orchestrator,
    ...(hooks?.has("PermissionRequest")
      ? {
          permissionHook: (question: PermissionQuestion) => hooks.permission(turnId, question, signal),
        }
      : {}),
    diffTracker: new LazyTurnDiff(),
    emit: sources.emit,
    wantsOutputDeltas: sources.wantsOutputDeltas,
    ...(sources.telemetry ? { telemetry: sources.telemetry } : {}),
    ...(sources.editorFiles ? { editorFiles: sources.editorFiles } : {}),
  };
}
