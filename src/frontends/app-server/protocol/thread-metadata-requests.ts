/**
 * Codex 0.169's methods that change or page a stored thread without a turn: thread/name/set,
 * thread/metadata/update, thread/unarchive, thread/revert, thread/items/list and
 * thread/inject_items. Params and results as 0.169's schema has them.
 */
import { z } from "zod";
import { thread, threadItem } from "./common.js";
import { lazy } from "./method-spec.js";

const threadId = lazy(() => z.string());
const nullableText = lazy(() => z.string().nullish());

export const threadSetNameParams = lazy(() => z.object({ threadId: threadId(), name: z.string() }));

/** Absent: unchanged; null: cleared (each git field too). */
export const threadMetadataUpdateParams = lazy(() =>
  z.object({
    threadId: threadId(),
    gitInfo: z.object({ sha: nullableText(), branch: nullableText(), originUrl: nullableText() }).nullish(),
    projectId: nullableText(),
    daybreakEnabled: z.boolean().nullish(),
  }),
);

export const threadRevertParams = lazy(() => z.object({ threadId: threadId(), beforeTurnId: z.string() }));

export const threadItemsListParams = lazy(() =>
  z.object({
    threadId: threadId(),
    /** Only this turn's items. */
    turnId: nullableText(),
    /** A position from a previous page, or the item to continue after. */
    cursor: z.union([z.string(), z.object({ type: z.literal("item"), itemId: z.string() })]).nullish(),
    limit: z.number().int().nonnegative().nullish(),
    sortDirection: z.enum(["asc", "desc"]).nullish(),
    /** Accepted; a stored tscodex thread keeps no command or MCP output to defer. */
    deferOutput: z
      .object({ commandExecution: z.boolean().optional(), mcpToolCall: z.boolean().optional() })
      .nullish(),
  }),
);

export const threadItemsListResponse = lazy(() =>
  z.object({
    data: z.array(z.object({ turnId: z.string(), item: threadItem })),
    nextCursor: z.string().nullable(),
    backwardsCursor: z.string().nullable(),
  }),
);

/** Raw Responses API items (message, function_call, ...), appended to the model's history. */
export const threadInjectItemsParams = lazy(() =>
  z.object({ threadId: threadId(), items: z.array(z.unknown()) }),
);

export const threadOnlyResponse = lazy(() => z.object({ thread }));
