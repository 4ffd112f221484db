/**
 * `fuzzyFileSearch` and its sessions (Codex 0.169 shapes, filed at the top level of the schema
 * as Codex files them): file and directory names under some roots matched against a query.
 */
import { z } from "zod";
import { emptyResult as empty, lazy, methodSpec } from "./method-spec.js";

const fuzzyFileSearchResult = lazy(() =>
  z
    .object({
      root: z.string(),
      /** Relative to `root`. */
      path: z.string(),
      match_type: z.enum(["file", "directory"]).meta({ id: "FuzzyFileSearchMatchType" }),
      file_name: z.string(),
      score: z.number().int().nonnegative(),
      /** Character positions in `path` that matched the query. */
      indices: z.array(z.number().int().nonnegative()).nullish(),
    })
    .meta({ id: "FuzzyFileSearchResult" }),
);

const files = lazy(() => z.array(fuzzyFileSearchResult()));
const sessionId = lazy(() => z.string());
const topLevel = <P extends z.ZodType, R extends z.ZodType>(
  params: () => P,
  result: () => R,
  paramsName: string,
  resultName: string,
) => methodSpec(params, result, paramsName, resultName, ".");

export const fuzzySearchRequests = {
  fuzzyFileSearch: topLevel(
    () =>
      z.object({
        query: z.string(),
        roots: z.array(z.string()),
        /** A later search with the same token cancels this one (it answers with no files). */
        cancellationToken: z.string().nullish(),
      }),
    () => z.object({ files: files() }),
    "FuzzyFileSearchParams",
    "FuzzyFileSearchResponse",
  ),
  "fuzzyFileSearch/sessionStart": topLevel(
    () => z.object({ sessionId: sessionId(), roots: z.array(z.string()) }),
    empty,
    "FuzzyFileSearchSessionStartParams",
    "FuzzyFileSearchSessionStartResponse",
  ),
  "fuzzyFileSearch/sessionUpdate": topLevel(
    () => z.object({ sessionId: sessionId(), query: z.string() }),
    empty,
    "FuzzyFileSearchSessionUpdateParams",
    "FuzzyFileSearchSessionUpdateResponse",
  ),
  "fuzzyFileSearch/sessionStop": topLevel(
    () => z.object({ sessionId: sessionId() }),
    empty,
    "FuzzyFileSearchSessionStopParams",
    "FuzzyFileSearchSessionStopResponse",
  ),
};

export const fuzzySearchNotifications = {
  "fuzzyFileSearch/sessionUpdated": {
    params: z.object({ sessionId: sessionId(), query: z.string(), files: files() }),
    name: "FuzzyFileSearchSessionUpdatedNotification",
    dir: ".",
  },
  "fuzzyFileSearch/sessionCompleted": {
    params: z.object({ sessionId: sessionId() }),
    name: "FuzzyFileSearchSessionCompletedNotification",
    dir: ".",
  },
};
