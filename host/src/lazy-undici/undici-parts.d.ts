// Types for the three files of undici that `pool.ts` loads instead of its index (which has no
// types of its own for them): each is the value undici's index exports under that name.
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';
  const PoolClass: typeof Pool;
  export = PoolClass;
}

declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';
  const DispatcherClass: typeof Dispatcher;
  export = DispatcherClass;
}

declare module 'undici/lib/api/index.js' {
  /** request, stream, pipeline, upgrade, connect: the methods undici's index puts on Dispatcher.prototype. */
  const api: Record<string, unknown>;
  export = api;
}
