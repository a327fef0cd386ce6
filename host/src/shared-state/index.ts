// Shared state: what several `serve --http` replicas keep in one Redis (`serve --state`), so any
// replica can list and answer any pending approval, a rate limit holds across all of them, a task
// is reachable from each, and a used input-round state is refused by every one (docs/operations.md).
// Without --state nothing here is loaded: every store stays in the process's memory.
export { parseStateUrl, type StateUrl } from './url.js';
export { StateUnavailable, type SharedState } from './state.js';
export { connectRedisState } from './redis.js';
