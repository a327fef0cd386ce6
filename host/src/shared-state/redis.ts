// SharedState on Redis through node-redis's client (@redis/client, loaded only when --state is
// given). Commands never queue while Redis is down (disableOfflineQueue) and each has a deadline,
// so a call that needs shared state fails at once instead of hanging; the client reconnects in
// the background, and subscriptions are renewed when it is back.
import { randomUUID } from 'node:crypto';
import { StateUnavailable, type SharedState, type StateMessage } from './state.js';
import type { StateUrl } from './url.js';

export interface RedisStateOptions {
  /** How long one command may take before it counts as Redis down (default 2000 ms). */
  commandTimeoutMs?: number;
  /** How long the first connection may take (default 3000 ms); past it start fails. */
  connectTimeoutMs?: number;
  /** Told when the connection drops or comes back (serve logs it). */
  onStatusChange?: (ready: boolean, err?: unknown) => void;
}

type RedisModule = typeof import('@redis/client');
type Client = ReturnType<RedisModule['createClient']>;

/** The package is CommonJS: in the bundle its exports come as the default export. */
async function loadCreateClient(): Promise<RedisModule['createClient']> {
  const mod = (await import('@redis/client')) as RedisModule & { default?: RedisModule };
  return typeof mod.createClient === 'function' ? mod.createClient : (mod.default as RedisModule).createClient;
}

/** Connects (command and subscriber connections); throws StateUnavailable when it cannot at start. */
export async function connectRedisState(url: StateUrl, options: RedisStateOptions = {}): Promise<SharedState> {
  const createClient = await loadCreateClient();
  let started = false;
  const make = (): Client =>
    createClient({
      url: url.url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: options.connectTimeoutMs ?? 3000,
        // Before start a failure is final (start exits 2); afterwards keep trying, at most once a second.
        reconnectStrategy: (retries: number, cause: Error) => (started ? Math.min(50 * 2 ** retries, 1000) : cause),
      },
    }) as unknown as Client;
  const main = make();
  const sub = make();
  const state = new RedisState(url.shown, main, sub, options);
  try {
    await Promise.all([main.connect(), sub.connect()]);
    await main.sendCommand(['PING']);
  } catch (err) {
    await state.close();
    throw new StateUnavailable(`--state ${url.shown}: cannot reach Redis (${describe(err)})`, { cause: err });
  }
  started = true;
  state.watch();
  return state;
}

function describe(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return describe(err.errors[0]);
  if (err instanceof Error)
    return 'code' in err && typeof err.code === 'string' ? `${err.code}: ${err.message}` : err.message;
  return String(err);
}

class RedisState implements SharedState {
  readonly replica = randomUUID();
  readonly shown: string;
  readonly #main: Client;
  readonly #sub: Client;
  readonly #timeoutMs: number;
  readonly #options: RedisStateOptions;
  readonly #channels = new Map<string, Set<(m: StateMessage) => void>>();
  readonly #status = new Set<(ready: boolean) => void>();
  #ready = true;
  #closed = false;

  constructor(shown: string, main: Client, sub: Client, options: RedisStateOptions) {
    this.shown = shown;
    this.#main = main;
    this.#sub = sub;
    this.#options = options;
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
    // Errors are reported through the status; an unhandled 'error' event would end the process.
    main.on('error', () => {});
    sub.on('error', () => {});
  }

  get ready(): boolean {
    return this.#ready && !this.#closed && this.#main.isReady;
  }

  /** From start on: say when the command connection drops and when it is back. */
  watch(): void {
    const down = (err?: unknown): void => this.#set(false, err);
    this.#main.on('error', down);
    this.#main.on('end', () => down());
    this.#main.on('reconnecting', () => down());
    this.#main.on('ready', () => this.#set(true));
  }

  #set(ready: boolean, err?: unknown): void {
    if (this.#ready === ready || this.#closed) return;
    this.#ready = ready;
    this.#options.onStatusChange?.(ready, err);
    for (const fn of this.#status) {
      try {
        fn(ready);
      } catch {
        // a listener's failure is its own
      }
    }
  }

  async command(args: readonly string[]): Promise<unknown> {
    if (!this.ready) throw new StateUnavailable(`shared state ${this.shown} is unavailable (Redis is not connected)`);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StateUnavailable(`shared state ${this.shown} did not answer within ${this.#timeoutMs} ms`)),
        this.#timeoutMs,
      );
    });
    try {
      return await Promise.race([this.#main.sendCommand([...args]), late]);
    } catch (err) {
      if (err instanceof StateUnavailable) throw err;
      if (err instanceof Error && /^(ERR|WRONGTYPE|NOSCRIPT)/.test(err.message)) throw err;
      throw new StateUnavailable(`shared state ${this.shown} is unavailable (${describe(err)})`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  script(lua: string, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return this.command(['EVAL', lua, String(keys.length), ...keys, ...args]);
  }

  async publish(channel: string, message: StateMessage): Promise<void> {
    await this.command(['PUBLISH', channel, JSON.stringify(message)]);
  }

  subscribe(channel: string, fn: (message: StateMessage) => void): () => void {
    let fns = this.#channels.get(channel);
    if (fns === undefined) {
      const set = new Set<(m: StateMessage) => void>();
      fns = set;
      this.#channels.set(channel, set);
      void this.#sub.subscribe(channel, (text: string) => deliver(set, text)).catch(() => {});
    }
    fns.add(fn);
    return () => void fns.delete(fn);
  }

  onStatus(fn: (ready: boolean) => void): () => void {
    this.#status.add(fn);
    return () => void this.#status.delete(fn);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const c of [this.#main, this.#sub]) {
      try {
        if (c.isOpen) c.destroy();
      } catch {
        // already closed
      }
    }
  }
}

function deliver(fns: ReadonlySet<(m: StateMessage) => void>, text: string): void {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return;
  for (const fn of fns) {
    try {
      fn(message as StateMessage);
    } catch {
      // a subscriber's failure is its own
    }
  }
}
