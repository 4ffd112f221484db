/**
 * The JSON-schema validator we hand the MCP SDK (client and server). We render whatever a
 * server returns, as Codex does, and check elicitation answers ourselves with zod, so the
 * SDK's default (ajv, ~250 KB) is never needed: the build replaces it with a stub
 * (scripts/build.mjs), which keeps it out of every start-up.
 */
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

export const acceptAllSchemas: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};
