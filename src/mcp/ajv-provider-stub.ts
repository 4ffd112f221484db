/**
 * Stands in for the MCP SDK's ajv provider in the bundle (scripts/build.mjs). tscodex always
 * passes its own validator (schema-validator.ts), so this is never constructed.
 */
export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error(
      "tscodex bundles no ajv: pass jsonSchemaValidator to the MCP SDK (src/mcp/schema-validator.ts)",
    );
  }
}
