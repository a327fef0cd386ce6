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

/** The host's wait as instance.ts does it: the poll (answered), then the sleep if the poll missed. */
async function hostWait(channel: Channel, ms: number): Promise<boolean> {
  return channel.answered() || (await channel.waitForWorker(ms));
}

describe('host polling for a worker answer', () => {
  it('after four slow answers in a row the host stops polling', async () => {
    const channel = Channel.create(64);
    expect(channel.hostPolling).toBe(true);
    for (let i = 0; i < 4; i += 1) {
      answerAfter(channel, 5);
      expect(await hostWait(channel, 1000)).toBe(true);
    }
    expect(channel.hostPolling).toBe(false);
  });

  it('an answer that is already there is taken without polling', async () => {
    const channel = Channel.create(64);
    for (let i = 0; i < 4; i += 1) {
      answerAfter(channel, 5);
      await hostWait(channel, 1000);
    }
    answerAfter(channel, 0);
    expect(await hostWait(channel, 1000)).toBe(true);
    expect(channel.hostPolling).toBe(false);
  });

  it('an answer already posted is taken by the poll itself, with nothing awaited, and only once', () => {
    const channel = Channel.create(64);
    answerAfter(channel, 0);
    expect(channel.answered()).toBe(true);
    // taken: the next poll finds no new message (and ends after its 50 µs)
    expect(channel.answered()).toBe(false);
  });

  it('a poll that misses leaves the message to the sleeping wait', async () => {
    const channel = Channel.create(64);
    expect(channel.answered()).toBe(false);
    answerAfter(channel, 5);
    expect(await channel.waitForWorker(1000)).toBe(true);
  });

  it('a wait with no answer still ends at its timeout, polling or not', async () => {
    const channel = Channel.create(64);
    const t0 = performance.now();
    expect(await hostWait(channel, 30)).toBe(false);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
  });
});
