// rate-limit's buckets in the replicas' shared state (`serve --state`): one Lua script checks
// every bucket a call falls in and takes a token from each, all or none, on Redis's own clock,
// so N replicas together let through what one would. A bucket left alone expires once it
// would be full again.
import type { SharedState } from '../shared-state/index.js';
import type { Buckets, BucketsFactory } from './buckets.js';

const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cap = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local levels = {}
for i, k in ipairs(KEYS) do
  local b = redis.call('HMGET', k, 'tokens', 'at')
  local level = cap
  if b[1] and b[2] then level = math.min(cap, tonumber(b[1]) + (now - tonumber(b[2])) / 1000 * rate) end
  if level < 1 then return 0 end
  levels[i] = level
end
if ARGV[3] == '1' then
  local ttl = math.ceil(cap / rate * 1000) + 1000
  for i, k in ipairs(KEYS) do
    redis.call('HSET', k, 'tokens', tostring(levels[i] - 1), 'at', tostring(now))
    redis.call('PEXPIRE', k, ttl)
  end
end
return 1
`;

/** Buckets under `toolgate:rl:<entry>:<key>`; StateUnavailable when Redis cannot be reached (the call is refused). */
export function sharedBuckets(state: SharedState): BucketsFactory {
  return (scope, capacity, perSecond): Buckets => ({
    async tryTake(keys, take) {
      const names = keys.map((k) => `toolgate:rl:${scope}:${k}`);
      const got = await state.script(TAKE, names, [String(capacity), String(perSecond), take ? '1' : '0']);
      return got === 1;
    },
  });
}
