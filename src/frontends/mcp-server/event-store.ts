/**
 * Resumable Streamable HTTP streams: what an MCP session sent on each SSE stream, kept so a
 * client whose connection dropped mid-call reconnects with `Last-Event-ID` (GET) and gets the
 * rest, the call's result included, while the call runs on (the MCP SDK's client does this by
 * itself once it saw the stream's first event id; the SDK's transport replays from this store).
 * One store per session, in memory and bounded: past `maxBytes` the oldest streams are dropped
 * whole, so a resume into one is refused (400) rather than answered with a hole; a single stream
 * over the bound loses its oldest notifications (progress), never a request or the result.
 */
import type { EventId, EventStore, StreamId } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** What one session keeps of its streams at most (JSON bytes). */
export const DEFAULT_REPLAY_BYTES = 1024 * 1024;

interface StoredStream {
  events: { seq: number; message: JSONRPCMessage }[];
  bytes: number;
}

export class SessionEventStore implements EventStore {
  /** Insertion order is age order: eviction takes the first. */
  private readonly streams = new Map<StreamId, StoredStream>();
  private bytes = 0;
  private nextSeq = 1;

  constructor(private readonly maxBytes = DEFAULT_REPLAY_BYTES) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    let stream = this.streams.get(streamId);
    if (!stream) {
      stream = { events: [], bytes: 0 };
      this.streams.set(streamId, stream);
    }
    const seq = this.nextSeq++;
    const size = JSON.stringify(message).length;
    stream.events.push({ seq, message });
    stream.bytes += size;
    this.bytes += size;
    this.evict(streamId);
    return eventId(streamId, seq);
  }

  async getStreamIdForEventId(id: EventId): Promise<StreamId | undefined> {
    const parsed = parseEventId(id);
    return parsed && this.streams.has(parsed.streamId) ? parsed.streamId : undefined;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const parsed = parseEventId(lastEventId);
    const stream = parsed ? this.streams.get(parsed.streamId) : undefined;
    if (!parsed || !stream) throw new Error(`unknown or expired event id ${lastEventId}`);
    for (const { seq, message } of stream.events)
      if (seq > parsed.seq) await send(eventId(parsed.streamId, seq), message);
    return parsed.streamId;
  }

  /**
   * Drop the oldest streams (never `keep`, the one just written) until under the bound; when
   * `keep` alone is over it (a long call's progress), its oldest notifications go, never a
   * request or a response.
   */
  private evict(keep: StreamId): void {
    for (const [id, stream] of this.streams) {
      if (this.bytes <= this.maxBytes) return;
      if (id === keep) continue;
      this.streams.delete(id);
      this.bytes -= stream.bytes;
    }
    const current = this.streams.get(keep);
    if (!current || this.bytes <= this.maxBytes) return;
    current.events = current.events.filter(({ message }) => {
      if (this.bytes <= this.maxBytes || "id" in message) return true;
      const size = JSON.stringify(message).length;
      current.bytes -= size;
      this.bytes -= size;
      return false;
    });
  }
}

function eventId(streamId: StreamId, seq: number): EventId {
  return `${streamId}_${seq}`;
}

function parseEventId(id: EventId): { streamId: StreamId; seq: number } | null {
  const cut = id.lastIndexOf("_");
  const seq = Number(id.slice(cut + 1));
  if (cut <= 0 || !Number.isSafeInteger(seq)) return null;
  return { streamId: id.slice(0, cut), seq };
}
