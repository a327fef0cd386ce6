// Tools that ship with the host, so `toolgate call` works before any manifest is installed.
import type { ToolDefinition } from './types.js';

export const echoTool: ToolDefinition = {
  name: 'echo',
  description: 'Return the given text unchanged. Useful to check that toolgate is wired up.',
  parameters: { text: { type: 'string', required: true, description: 'The text to return' } },
  output: {
    schema: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
    render: { template: '{{text}}' },
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  execute: (args) => ({ text: args.text ?? '' }),
};

export const builtinTools: readonly ToolDefinition[] = [echoTool];
