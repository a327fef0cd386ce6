// The per-plugin bound on what a module's calls send their clients besides requests (log lines,
// progress, notifications): a token bucket shared by every call of the plugin, so many calls at
// once cannot flood the server's sessions together. Each call has its own bound first, in the
// sandbox (worker/client-functions.ts). Past it a notice is dropped, never queued, and counted in
// the server log (docs/authoring.md, "Host functions of the hyper-mcp interface").
import type { Logger } from 'pino';
import { tokenBucket } from '../sandbox/index.js';
import type { CallClient } from '../tool/index.js';

/** Notices per second one plugin's calls may send together, after a burst of PLUGIN_NOTICE_BURST. */
export const PLUGIN_NOTICES_PER_SECOND = 128;
export const PLUGIN_NOTICE_BURST = 512;

export interface NoticeLimit {
  /** The call's client with its log, progress and notify behind the plugin's bucket. */
  wrap(client: CallClient): CallClient;
  /** Notices dropped so far. */
  readonly dropped: number;
}

export function pluginNoticeLimit(
  plugin: string,
  logger: Logger | undefined,
  now: () => number = () => performance.now(),
): NoticeLimit {
  const bucket = tokenBucket(PLUGIN_NOTICE_BURST, PLUGIN_NOTICES_PER_SECOND, now);
  let dropped = 0;
  let unreported = 0;
  let reportedAt = Number.NEGATIVE_INFINITY;
  const take = (): boolean => {
    if (bucket.take()) return true;
    const t = now();
    dropped++;
    unreported++;
    // one line a second at most: the report must not become the flood
    if (t - reportedAt >= 1000) {
      logger?.warn(
        { plugin, dropped: unreported, total: dropped },
        `plugin ${plugin}: ${unreported} client notices dropped over the plugin's bound (${PLUGIN_NOTICES_PER_SECOND}/s)`,
      );
      unreported = 0;
      reportedAt = t;
    }
    return false;
  };
  return {
    get dropped() {
      return dropped;
    },
    wrap(client) {
      return {
        log: (level, data, name) => (take() ? client.log(level, data, name) : Promise.resolve(false)),
        progress: (progress, total, message) =>
          take() ? client.progress(progress, total, message) : Promise.resolve(false),
        request: (req, signal, timeoutMs) => client.request(req, signal, timeoutMs),
        notify: (method, params) =>
          take() && client.notify !== undefined ? client.notify(method, params) : Promise.resolve(false),
      };
    },
  };
}
