/**
 * `skills/list`: the skills a thread started in each asked-for directory gets; `skills/config/write`
 * turns one off or on; `skills/extraRoots/set` adds roots (Codex 0.169 shapes).
 */
import { z } from "zod";
import { lazy } from "./method-spec.js";

export const skillsListParams = lazy(() =>
  z.object({
    cwds: z.array(z.string()).nullish(),
    forceReload: z.boolean().nullish(),
  }),
);

const skillMetadata = lazy(() =>
  z.object({
    name: z.string(),
    description: z.string(),
    path: z.string(),
    scope: z.enum(["user", "repo", "system", "admin"]),
    enabled: z.boolean(),
  }),
);

export const skillsListResponse = lazy(() =>
  z.object({
    data: z.array(
      z.object({
        cwd: z.string(),
        skills: z.array(skillMetadata()),
        errors: z.array(z.object({ path: z.string(), message: z.string() })),
      }),
    ),
  }),
);

/** Exactly one of `path` (an absolute SKILL.md path) and `name` picks the skill. */
export const skillsConfigWriteParams = lazy(() =>
  z.object({
    path: z.string().nullish(),
    name: z.string().nullish(),
    enabled: z.boolean(),
  }),
);

export const skillsConfigWriteResponse = lazy(() => z.object({ effectiveEnabled: z.boolean() }));

export const skillsExtraRootsSetParams = lazy(() => z.object({ extraRoots: z.array(z.string()) }));

export const skillsExtraRootsSetResponse = lazy(() => z.object({}));
