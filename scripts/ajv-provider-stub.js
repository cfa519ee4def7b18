// Build-time stand-in for @modelcontextprotocol/sdk/validation/ajv-provider.js (see tsup.config.ts).
export class AjvJsonSchemaValidator {
  getValidator() {
    throw new Error('JSON Schema validation of client data is not used by model-feed-mcp');
  }
}
