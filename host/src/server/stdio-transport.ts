// MCP over newline-delimited JSON-RPC on a pair of streams. Our own (not the SDK's) because a
// client must get an answer for every line it sends: -32700 for a line that is not JSON, -32600
// for JSON that is not a JSON-RPC message. Requests that arrive while `initialize` is unanswered
// wait for that answer, so a client that pipes initialize and a call together is answered in order.
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { RPC_MESSAGES } from './rpc-error.js';
import { isPlainRequest } from './rpc-shape.js';

/** A line longer than this is dropped (answered -32700) instead of buffering without bound. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

type Id = string | number;

export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /**
   * Where requests of the plain shape go, when set (see directRequests in stdio.ts): past the SDK's
   * own classification, which runs three more zod parses per message, two of them failing.
   */
  onrequest?: (request: JSONRPCRequest) => void;

  #buffer = '';
  #closed = false;
  /** The id of an initialize request not yet answered; lines behind it wait in #held. */
  #initializing: Id | undefined;
  readonly #held: string[] = [];
  /** A character whose bytes two reads split is decoded whole, once its last byte is read. */
  readonly #decoder = new StringDecoder('utf8');
  readonly #onData = (chunk: Buffer | string) =>
    this.#append(typeof chunk === 'string' ? chunk : this.#decoder.write(chunk));
  readonly #onError = (err: Error) => this.onerror?.(err);

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    /** Called after each initialize answer is written, once what waited behind it was delivered. */
    private readonly onInitialized: () => void = () => {},
  ) {}

  #started = false;

  /** Idempotent: stdio.ts starts reading before it knows which server will take the messages. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.input.on('data', this.#onData);
    this.input.on('error', this.#onError);
  }

  #append(text: string): void {
    this.#buffer += text;
    for (;;) {
      const end = this.#buffer.indexOf('\n');
      if (end < 0) break;
      // a trailing CR is dropped and a blank line skipped, with no regex and, for a line that opens
      // an object (every message), no trim: these run on every message
      const stop = end > 0 && this.#buffer.charCodeAt(end - 1) === 13 ? end - 1 : end;
      const line = this.#buffer.slice(0, stop);
      this.#buffer = end + 1 === this.#buffer.length ? '' : this.#buffer.slice(end + 1);
      if (line.charCodeAt(0) !== 123 && line.trim() === '') continue;
      if (this.#initializing !== undefined) this.#held.push(line);
      else this.#line(line);
    }
    if (this.#buffer.length > MAX_LINE_BYTES) {
      this.#buffer = '';
      this.#reject(-32700, `${RPC_MESSAGES[-32700]}: a line is longer than ${MAX_LINE_BYTES} bytes`);
    }
  }

  #line(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      return this.#reject(-32700, `${RPC_MESSAGES[-32700]}: the line is not valid JSON`);
    }
    if (isPlainRequest(json)) return this.#deliver(json, true);
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      const id = idOf(json);
      return this.#reject(-32600, `${RPC_MESSAGES[-32600]}: not a JSON-RPC 2.0 message`, id);
    }
    this.#deliver(parsed.data, false);
  }

  #deliver(message: JSONRPCMessage, plainRequest: boolean): void {
    if ('method' in message && message.method === 'initialize' && 'id' in message) this.#initializing = message.id;
    if (plainRequest && this.onrequest !== undefined) this.onrequest(message as JSONRPCRequest);
    else this.onmessage?.(message);
  }

  #reject(code: number, message: string, id: Id | null = null): void {
    this.#write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  #write(message: unknown): void {
    if (this.#closed) return;
    this.output.write(`${JSON.stringify(message)}\n`);
  }

  /** Writes an answer that is not initialize's at once, with no promise (the direct path, direct-call.ts). */
  write(message: JSONRPCMessage): void {
    this.#write(message);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.#write(message);
    if (
      this.#initializing !== undefined &&
      'id' in message &&
      message.id === this.#initializing &&
      !('method' in message)
    ) {
      this.#initializing = undefined;
      // Deliver what waited, in order; a second initialize among them holds the rest again.
      while (this.#initializing === undefined && this.#held.length > 0) this.#line(this.#held.shift() as string);
      this.onInitialized();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.input.off('data', this.#onData);
    this.input.off('error', this.#onError);
    this.#closed = true;
    this.onclose?.();
  }
}

function idOf(json: unknown): Id | null {
  if (typeof json !== 'object' || json === null) return null;
  const id = (json as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
