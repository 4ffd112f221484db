/**
 * Collaboration modes and user shell commands on the wire: turn/start's `collaborationMode`,
 * collaborationMode/list and thread/shellCommand, as Codex 0.169's schema has them. A mode as
 * 0.89 sent it (flat: mode, model, reasoning_effort, developer_instructions) is read too.
 */
import { z } from "zod";
import { reasoningEffort } from "./common.js";
import { lazy } from "./method-spec.js";

export const modeKind = lazy(() => z.enum(["plan", "default"]).meta({ id: "ModeKind" }));

const modeSettings = lazy(() =>
  z.object({
    model: z.string(),
    reasoning_effort: reasoningEffort.nullish(),
    developer_instructions: z.string().nullish(),
  }),
);

/** 0.169: `{mode, settings: {model, reasoning_effort?, developer_instructions?}}`. */
const collaborationMode169 = lazy(() => z.object({ mode: modeKind(), settings: modeSettings() }));
/** 0.89: the settings beside the mode. */
const collaborationMode089 = lazy(() => modeSettings().extend({ mode: modeKind() }));

/** turn/start's mode, read into one shape. */
export const collaborationModeParam = lazy(() =>
  z
    .union([collaborationMode169(), collaborationMode089()])
    .transform((value) => ("settings" in value ? value : { mode: value.mode, settings: value })),
);
export type CollaborationModeParam = z.output<ReturnType<typeof collaborationModeParam>>;

const collaborationModeMask = lazy(() =>
  z
    .object({
      name: z.string(),
      mode: modeKind().nullable(),
      model: z.string().nullable(),
      reasoning_effort: reasoningEffort.nullable(),
    })
    .meta({ id: "CollaborationModeMask" }),
);

export const collaborationModeListResponse = lazy(() => z.object({ data: z.array(collaborationModeMask()) }));

export const threadShellCommandParams = lazy(() =>
  z.object({
    threadId: z.string(),
    /** A script for the user's shell, run as a turn of its own. */
    command: z.string(),
    /** Kill it after this long (default: the shell tool's timeout). */
    timeoutMs: z.number().int().positive().nullish(),
  }),
);
