// Build-time stand-in for @modelcontextprotocol/server/_shims (see tsup.config.ts): the SDK's Node
// shims load Ajv for a default JSON Schema validator, which this server never uses (it passes its
// own: it validates no client-sent schema).
import process from 'node:process';

export class DefaultJsonSchemaValidator {
  getValidator() {
    throw new Error('JSON Schema validation of client data is not used by model-feed-mcp');
  }
}

export { process };
