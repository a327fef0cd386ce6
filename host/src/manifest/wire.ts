// The bytes between the tool and its module (docs/authoring.md, "The wire ABI"): by default the arguments object as
// UTF-8 JSON in and JSON out; stock Extism plugins read raw bytes (input.encoding raw/base64) and may
// answer text or bytes (output.encoding text/base64).
import { isJson, ToolFailure } from '../tool/index.js';
import type { Json, JsonObject } from '../tool/index.js';
import { messageOf } from '../errors/index.js';

export type OutputEncoding = 'json' | 'text' | 'base64';
export interface InputEncoding {
  encoding: 'json' | 'raw' | 'base64';
  parameter?: string | undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Short, single-line excerpt of a parse error so a hostile module cannot flood the result. */
function excerpt(err: unknown): string {
  const text = messageOf(err);
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

/** The module's input for these (already validated) arguments. */
export function encodeInput(args: Readonly<JsonObject>, input: InputEncoding): Uint8Array {
  if (input.encoding === 'json' || input.parameter === undefined) return encoder.encode(JSON.stringify(args));
  const value = args[input.parameter];
  // the schema requires the parameter as a string, so only a caller bypassing validation gets here
  if (typeof value !== 'string')
    throw new ToolFailure('INVALID_ARGS', `argument "${input.parameter}" must be a string (input.parameter)`);
  if (input.encoding === 'raw') return encoder.encode(value);
  const compact = value.replace(/\s+/g, '');
  if (!BASE64.test(compact))
    throw new ToolFailure(
      'INVALID_ARGS',
      `argument "${input.parameter}" is not valid base64 (input.encoding is base64)`,
    );
  return new Uint8Array(Buffer.from(compact, 'base64'));
}

/** Decodes module output per output.encoding; a malformed output is the module's fault (TOOL_ERROR). */
export function decodeOutput(bytes: Uint8Array, encoding: OutputEncoding): Json {
  // base64: the bytes need not be text at all (a packed integer, an image); the model gets their base64
  if (encoding === 'base64') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ToolFailure(
      'TOOL_ERROR',
      encoding === 'text'
        ? 'module output is not valid UTF-8 text'
        : 'module output is not valid JSON: not valid UTF-8',
    );
  }
  if (encoding === 'text') return text;
  if (text.trim() === '') throw new ToolFailure('TOOL_ERROR', 'module output is not valid JSON: the output is empty');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ToolFailure('TOOL_ERROR', `module output is not valid JSON: ${excerpt(err)}`);
  }
  // JSON.parse turns 1e400 into Infinity, which no JSON consumer downstream can carry.
  let plain: boolean;
  try {
    plain = isJson(value);
  } catch {
    plain = false; // nested too deeply to walk
  }
  if (!plain)
    throw new ToolFailure(
      'TOOL_ERROR',
      'module output is not valid JSON: a number is out of range or it is nested too deeply',
    );
  return value as Json;
}
