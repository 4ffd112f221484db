/**
 * initialize's params and result: the only schemas the handshake needs. Kept apart from the
 * method table (client-requests.ts), which loads on the first other request, so a client's
 * `initialize` is answered without building the schemas of every other method.
 */
import { z } from "zod";
import { method } from "./method-spec.js";

const clientInfo = z.object({ name: z.string(), title: z.string().nullish(), version: z.string() });

const initializeParams = z.object({
  clientInfo,
  capabilities: z.object({ experimentalApi: z.boolean().optional() }).nullish(),
});
const initializeResponse = z.object({
  userAgent: z.string(),
  codexHome: z.string(),
  platformFamily: z.string(),
  platformOs: z.string(),
});

export const initializeRequest = method(
  () => initializeParams,
  () => initializeResponse,
  "InitializeParams",
  "InitializeResponse",
  "v1",
);
