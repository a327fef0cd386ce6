// Why a tool definition was refused: names the tool and the field so an author can fix it at once.
export class ToolDefinitionError extends Error {
  readonly tool: string;
  readonly field: string;
  constructor(tool: string, field: string, rule: string) {
    super(`tool "${tool}": ${field}: ${rule}`);
    this.name = 'ToolDefinitionError';
    this.tool = tool;
    this.field = field;
  }
}
