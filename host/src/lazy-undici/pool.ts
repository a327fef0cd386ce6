// undici's Pool without the rest of undici. The sandbox's HTTP gate needs one class, a Pool with
// its `request` method, but undici's index evaluates every part of the package (fetch, WebSocket,
// EventSource, mocks, caches, proxies): 1.06 MB of bundled source, held as text for the life of
// the process, and ~4.6 MiB of heap against ~1.6 MiB for these files (docs/decisions.md, "Memory
// after serving, second round"). The request methods are put on Dispatcher.prototype exactly as
// undici's index does, so a Pool from here is the index's Pool, and loading the whole package
// later (an approval callback) assigns the same functions again.
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import PoolClass from 'undici/lib/dispatcher/pool.js';
import api from 'undici/lib/api/index.js';

Object.assign(DispatcherClass.prototype, api);

export const Pool = PoolClass;
