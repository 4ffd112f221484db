/**
 * turn/start with a `clientUserMessageId` (turn-keys.ts): at most one turn per key and thread.
 * A resend is answered with the turn the key started, as it is now, and takes it over when its
 * client left (thread-channel.ts). Keys are kept in this process and in the thread store
 * (`app-server:<thread>:<key>`, 24 h), so a restarted server, or another process on the same
 * store that has the thread later, answers a resend with that turn instead of starting another.
 * Only the process holding a thread starts its turns, so the store needs no lease of its own.
 */
import type { IdempotencyRecord, ThreadStore } from "../../../store/index.js";
import { errorMessage } from "../../../util/errors.js";
import { KEY_TTL_MS, newKeyRecord, pruneExpiredKeysOnce } from "../../common/keyed-requests.js";
import { visibleLine } from "../../common/terminal-text.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import type { ThreadChannel } from "../thread-channel.js";
import { liveView, requireStored } from "../thread-files.js";
import { storedThreadView } from "../thread-view.js";
import { keyReused, type TurnState } from "../turn-keys.js";
import type { HandlerContext } from "./context.js";

/** Start the turn of `params` under `key` with `start` (which returns its id), once. */
export async function keyedTurnStart(
  channel: ThreadChannel,
  params: ParamsOf<"turn/start">,
  key: string,
  context: HandlerContext,
  start: () => Promise<string>,
): Promise<ResultOf<"turn/start">> {
  const { runtime } = context;
  const claim = runtime.turnKeys.claim(params.threadId, key, params);
  if (claim.kind === "known") {
    // A resend (its connection dropped): the turn it started, as it is now, and no second one.
    const turnId = await claim.turnId;
    channel.takeOver(turnId, context.session);
    return answer(turnId, await stateOf(context, channel, turnId, claim.ended()));
  }
  const { store } = await runtime.threads();
  pruneExpiredKeysOnce(store);
  const record = newKeyRecord(`app-server:${params.threadId}:${key}`, claim.fingerprint, KEY_TTL_MS);
  let turnId: string;
  let claimed = false;
  try {
    const earlier = await storedTurnId(store, record, params.threadId, key);
    if (earlier !== null) {
      claim.started(earlier);
      return answer(earlier, await stateOf(context, channel, earlier, null));
    }
    claimed = true;
    turnId = await start();
  } catch (error) {
    claim.failed();
    // A turn/start refused (bad input) frees its key: the corrected request may use it.
    if (claimed) await store.dropIdempotencyKey(record.key).catch(() => {});
    throw error;
  }
  channel.keyTurn(turnId, key);
  claim.started(turnId);
  // The turn runs either way; only a resend after a restart would miss the key.
  await store.saveIdempotencyKey({ ...record, result: { status: 200, body: { turnId } } }).catch((error) => {
    // The key is the client's: its controls are shown, not written to the operator's terminal.
    process.stderr.write(
      `tscodex app-server: storing clientUserMessageId ${visibleLine(`${key}: ${errorMessage(error)}`)}\n`,
    );
  });
  return answer(turnId, { status: "inProgress", error: null });
}

/** The turn an earlier process started under the key, or null when it is new here (claimed now). */
async function storedTurnId(
  store: ThreadStore,
  record: IdempotencyRecord,
  threadId: string,
  key: string,
): Promise<string | null> {
  const existing = await store.claimIdempotencyKey(record);
  if (!existing) return null;
  if (existing.fingerprint !== record.fingerprint) throw keyReused(threadId, key);
  const turnId = (existing.result?.body as { turnId?: unknown } | undefined)?.turnId;
  // No turn id: the process claiming it stopped before its turn started; this one starts it.
  return typeof turnId === "string" ? turnId : null;
}

/** How turn `turnId` is now: as it ended, running here, or as the thread's store shows it. */
async function stateOf(
  context: HandlerContext,
  channel: ThreadChannel,
  turnId: string,
  ended: TurnState | null,
): Promise<TurnState> {
  if (ended) return ended;
  if (channel.hasTurn(turnId)) return { status: "inProgress", error: null };
  const stored = await requireStored(await context.runtime.threads(), channel.id);
  const view = storedThreadView(stored, { includeTurns: true, live: liveView(context.runtime, channel.id) });
  const turn = view.turns.find((candidate) => candidate.id === turnId);
  return turn ? { status: turn.status, error: turn.error } : { status: "interrupted", error: null };
}

function answer(turnId: string, state: TurnState): ResultOf<"turn/start"> {
  return { turn: { id: turnId, items: [], ...state } };
}
