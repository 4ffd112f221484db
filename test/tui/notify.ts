/** Feeds a transcript a notification the way the app does: through the wire's one entry point. */
import type { Transcript } from "../../src/frontends/tui/transcript.js";
import { readNotification, type UiNotification } from "../../src/frontends/tui/wire.js";

/** The typed notification for `method`; throws for one the UI does not read. */
export function notification(method: string, params: unknown): UiNotification {
  const read = readNotification(method, params);
  if (!read) throw new Error(`the UI does not read ${method}`);
  return read;
}

export function apply(transcript: Transcript, method: string, params: unknown): boolean {
  return transcript.apply(notification(method, params));
}
