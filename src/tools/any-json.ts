/**
 * Parsing a call's raw arguments as any JSON value, with serde_json's error texts, for the tools
 * whose parameters are not ours (MCP and client tools). Their modules import this on a call's
 * first use, so a thread that offers such tools but never calls them does not load zod.
 */
import { z } from "zod";

export { parseFunctionArguments } from "./define-tool.js";
export { ArgumentsError, parseToolArguments } from "./json-args.js";

/** serde_json's view of the raw arguments: any JSON value. */
export const anyJson = z.unknown();
