// Why a tool definition was refused: names the tool and the field so an author can fix it at once.
import { ToolgateError } from '../errors/index.js';

export class ToolDefinitionError extends ToolgateError<'INVALID_TOOL_DEFINITION'> {
  readonly tool: string;
  readonly field: string;
  constructor(tool: string, field: string, rule: string) {
    super('INVALID_TOOL_DEFINITION', `tool "${tool}": ${field}: ${rule}`);
    this.tool = tool;
    this.field = field;
  }
}
