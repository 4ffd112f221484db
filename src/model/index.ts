/**
 * The model layer: a Prompt in, a stream of ResponseEvents out, over either OpenAI wire.
 *
 * Responsibilities: build each wire's request (responses.ts, chat.ts), send it (http.ts),
 * parse SSE (sse.ts), map events, retry (client.ts). The turn loop only sees `ModelClient`.
 */
export { buildChatRequest, mapChatStream, toChatMessages, toChatTools } from "./chat.js";
export { createModelClient, type ModelClientOptions } from "./client.js";
export { retryAfterFromHeaders, retryAfterFromMessage, type WireRequest } from "./http.js";
export { buildResponsesRequest, mapResponsesStream, parseResponseItem, toWireItem } from "./responses.js";
export { readSse, type SseMessage } from "./sse.js";
export * from "./types.js";
