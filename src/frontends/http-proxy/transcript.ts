/**
 * The fingerprint of a conversation as the client sees it: its user messages, the client's
 * function calls and their outputs, in order, folded into one hash (assistant text is left out:
 * clients join or split it differently). Stored with each response, it lets a stateless client
 * (one that resends its whole history) continue a parked turn, and nobody else: a request
 * continues a parked turn without naming its response only when its history folds to the same
 * value as that response's.
 */
import { createHash } from "node:crypto";
import type { Entry } from "./conversation.js";

/** The fingerprint of no conversation. */
export const EMPTY_TRANSCRIPT = "";

/** `transcript` extended with `entries`. */
export function extendTranscript(transcript: string, entries: readonly Entry[]): string {
  let hash = transcript;
  for (const entry of entries) {
    const part = partOf(entry);
    if (part === null) continue;
    hash = createHash("sha256").update(hash).update(JSON.stringify(part)).digest("hex");
  }
  return hash;
}

function partOf(entry: Entry): unknown[] | null {
  switch (entry.kind) {
    case "user":
      return ["user", entry.text, entry.images];
    case "call":
      return ["call", entry.callId, entry.name, entry.arguments];
    case "output":
      return ["output", entry.callId, entry.output];
    case "assistant":
      return null;
  }
}
