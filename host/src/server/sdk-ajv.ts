// The MCP SDK's JSON Schema validator (ajv), loaded on first use. The SDK's server module imports
// its ajv provider eagerly, and evaluating ajv cost ~14 ms of every start although toolgate never
// asks the SDK to validate (its elicitations go out through sendRequest). The bundle
// (scripts/bundle.mjs) puts this class in place of the SDK's provider, and createMcpServer passes
// one; from sources the SDK's own provider loads as usual. ajv is CommonJS, so a synchronous
// require of the SDK's CommonJS build keeps getValidator synchronous.
import { createRequire } from 'node:module';
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';

const requireCjs = createRequire(import.meta.url);

export class AjvJsonSchemaValidator implements jsonSchemaValidator {
  #inner: jsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.#inner ??= new (
      requireCjs(
        '@modelcontextprotocol/sdk/validation/ajv',
      ) as typeof import('@modelcontextprotocol/sdk/validation/ajv')
    ).AjvJsonSchemaValidator();
    return this.#inner.getValidator<T>(schema);
  }
}
