/**
 * `hooks/list`: the configured command hooks of each asked-for directory, shaped as Codex
 * 0.169's HooksListResponse (so a client can show them and trust one by writing its
 * `currentHash` with config/batchWrite).
 */
import { z } from "zod";
import { lazy } from "./method-spec.js";

export const hookEventName = lazy(() =>
  z.enum([
    "preModelRequest",
    "postModelRequest",
    "preToolUse",
    "permissionRequest",
    "postToolUse",
    "preCompact",
    "postCompact",
    "sessionStart",
    "sessionEnd",
    "userPromptSubmit",
    "subagentStart",
    "subagentStop",
    "stop",
    "interrupt",
  ]),
);

const hookMetadata = lazy(() =>
  z.object({
    key: z.string(),
    eventName: hookEventName(),
    handlerType: z.literal("command"),
    command: z.string(),
    async: z.boolean(),
    matcher: z.string().nullable(),
    currentHash: z.string(),
    trustStatus: z.enum(["managed", "untrusted", "trusted", "modified"]),
    enabled: z.boolean(),
    isManaged: z.boolean(),
    source: z.enum(["user", "project"]),
    sourcePath: z.string(),
    displayOrder: z.number().int(),
    timeoutSec: z.number().int().nonnegative(),
    statusMessage: z.string().nullable(),
  }),
);

/** One hook run (`hook/started`, `hook/completed`): Codex 0.169's HookRunSummary. */
export const hookRunSummary = lazy(() =>
  z.object({
    id: z.string(),
    eventName: hookEventName(),
    handlerType: z.literal("command"),
    executionMode: z.literal("sync"),
    scope: z.enum(["thread", "turn"]),
    sourcePath: z.string(),
    source: z.enum(["user", "project"]),
    displayOrder: z.number().int(),
    status: z.enum(["running", "completed", "failed", "blocked", "stopped"]),
    statusMessage: z.string().nullable(),
    startedAt: z.number().int(),
    completedAt: z.number().int().nullable(),
    durationMs: z.number().int().nullable(),
    entries: z.array(
      z.object({ kind: z.enum(["warning", "stop", "feedback", "context", "error"]), text: z.string() }),
    ),
  }),
);

export const hooksListParams = lazy(() =>
  z.object({
    cwds: z.array(z.string()).nullish(),
    threadId: z.string().nullish(),
  }),
);

export const hooksListResponse = lazy(() =>
  z.object({
    data: z.array(
      z.object({
        cwd: z.string(),
        hooks: z.array(hookMetadata()),
        warnings: z.array(z.string()),
        errors: z.array(z.object({ path: z.string(), message: z.string() })),
      }),
    ),
  }),
);
