// Server-sent events for the page: the pending list when it changes, the recent calls after each
// finished call, the tools when the list or the policy set changes. A bounded set of streams,
// each with a heartbeat so proxies and the browser see it alive.
import type { ServerResponse } from 'node:http';

const MAX_STREAMS = 32;
const HEARTBEAT_MS = 20_000;

export class EventHub {
  readonly #streams = new Set<ServerResponse>();
  #timer: NodeJS.Timeout | undefined;

  get size(): number {
    return this.#streams.size;
  }

  /** Opens a stream on `res`; false (nothing written) when at the cap. */
  open(res: ServerResponse, headers: Record<string, string>): boolean {
    if (this.#streams.size >= MAX_STREAMS) return false;
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write('retry: 1000\n\n');
    this.#streams.add(res);
    res.once('close', () => {
      this.#streams.delete(res);
      if (this.#streams.size === 0) this.#stopHeartbeat();
    });
    this.#timer ??= setInterval(() => this.#write(': ping\n\n'), HEARTBEAT_MS).unref();
    return true;
  }

  send(res: ServerResponse, event: string, data: unknown): void {
    if (!res.writableEnded) res.write(frame(event, data));
  }

  broadcast(event: string, data: unknown): void {
    this.#write(frame(event, data));
  }

  close(): void {
    this.#stopHeartbeat();
    for (const res of this.#streams) res.end();
    this.#streams.clear();
  }

  #write(chunk: string): void {
    for (const res of this.#streams) if (!res.writableEnded) res.write(chunk);
  }

  #stopHeartbeat(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** JSON never holds a raw newline, so one data line per event. */
function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
