// The host's wait for a worker polls briefly before it sleeps, but only while answers come fast:
// a slow tool must not make the event loop spin on every call.
import { describe, expect, it } from 'vitest';
import { Channel } from '../../host/src/sandbox/channel.js';

/** Stands in for the worker: posts an answer on the same channel after `ms` (0 = at once). */
function answerAfter(channel: Channel, ms: number): void {
  const post = () => {
    Atomics.add(channel.ctrl, 1, 1);
    Atomics.notify(channel.ctrl, 1);
  };
  if (ms === 0) post();
  else setTimeout(post, ms);
}

describe('host polling for a worker answer', () => {
  it('after four slow answers in a row the host stops polling', async () => {
    const channel = Channel.create(64);
    expect(channel.hostPolling).toBe(true);
    for (let i = 0; i < 4; i += 1) {
      answerAfter(channel, 5);
      expect(await channel.waitForWorker(1000)).toBe(true);
    }
    expect(channel.hostPolling).toBe(false);
  });

  it('an answer that is already there is taken without polling', async () => {
    const channel = Channel.create(64);
    for (let i = 0; i < 4; i += 1) {
      answerAfter(channel, 5);
      await channel.waitForWorker(1000);
    }
    answerAfter(channel, 0);
    expect(await channel.waitForWorker(1000)).toBe(true);
    expect(channel.hostPolling).toBe(false);
  });

  it('a wait with no answer still ends at its timeout, polling or not', async () => {
    const channel = Channel.create(64);
    const t0 = performance.now();
    expect(await channel.waitForWorker(30)).toBe(false);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
  });
});
