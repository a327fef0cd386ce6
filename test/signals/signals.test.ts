// Waiting on a signal: raceSignal and whenAborted share one 'abort' listener per signal, and keep
// the rules the pipeline and the sandbox rely on (work that settled first wins; the reason is kept).
import { getEventListeners } from 'node:events';
import { describe, expect, test } from 'vitest';
import { LazyAbort, ownedAbort, raceSignal, whenAborted } from '../../host/src/signals/index.js';

/** Counts the 'abort' listeners added to a signal, as the EventTarget sees them. */
function counted(): { signal: AbortSignal; abort: (reason?: unknown) => void; added: () => number } {
  const ac = new AbortController();
  let n = 0;
  const add = ac.signal.addEventListener.bind(ac.signal) as (
    type: string,
    listener: () => void,
    options?: { once?: boolean },
  ) => void;
  const counting = (type: string, listener: () => void, options?: { once?: boolean }): void => {
    if (type === 'abort') n += 1;
    add(type, listener, options);
  };
  Object.defineProperty(ac.signal, 'addEventListener', { value: counting });
  return { signal: ac.signal, abort: (r) => ac.abort(r), added: () => n };
}

describe('waiting on a signal', () => {
  test('many waits on one signal add one listener, and every wait still runs on abort', async () => {
    const s = counted();
    const ran: number[] = [];
    for (let i = 0; i < 5; i++) whenAborted(s.signal, () => ran.push(i));
    const races = [0, 1, 2].map(() => raceSignal(new Promise(() => {}), s.signal).catch((e: unknown) => e));
    expect(s.added()).toBe(1);
    s.abort(new Error('stop'));
    expect(ran).toEqual([0, 1, 2, 3, 4]);
    for (const r of await Promise.all(races)) expect((r as Error).message).toBe('stop');
  });

  test('a wait that was stopped does not run; settled races leave nothing behind', async () => {
    const s = counted();
    const ran: string[] = [];
    const stop = whenAborted(s.signal, () => ran.push('stopped one'));
    whenAborted(s.signal, () => ran.push('kept one'));
    stop();
    for (let i = 0; i < 100; i++) expect(await raceSignal(Promise.resolve(i), s.signal)).toBe(i);
    s.abort();
    expect(ran).toEqual(['kept one']);
    expect(s.added()).toBe(1);
  });

  test('work that settles in the same turn as the abort still wins, and a later wait on an aborted signal rejects', async () => {
    const ac = new AbortController();
    const work = Promise.resolve('value');
    const race = raceSignal(work, ac.signal);
    ac.abort(new Error('late'));
    expect(await race).toBe('value');
    await expect(raceSignal(new Promise(() => {}), ac.signal)).rejects.toThrow('late');
  });

  test('a signal aborted again after its waits ran does not run them twice; a new signal starts afresh', () => {
    const first = new AbortController();
    let runs = 0;
    whenAborted(first.signal, () => (runs += 1));
    first.abort();
    first.abort();
    expect(runs).toBe(1);
    const second = new AbortController();
    whenAborted(second.signal, () => (runs += 10));
    second.abort();
    expect(runs).toBe(11);
  });
});

describe('no listener left behind', () => {
  test('when its last wait stops, a signal keeps no listener: a long-lived signal raced many times collects none', async () => {
    const ac = new AbortController();
    for (let i = 0; i < 50; i++) {
      const stops = [whenAborted(ac.signal, () => {}), whenAborted(ac.signal, () => {})];
      expect(await raceSignal(Promise.resolve(i), ac.signal)).toBe(i);
      expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
      for (const stop of stops) stop();
      expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    }
    // and waiting again afterwards still works
    const ran: string[] = [];
    whenAborted(ac.signal, () => ran.push('ran'));
    ac.abort();
    expect(ran).toEqual(['ran']);
  });
});

describe('an owned signal (ownedAbort)', () => {
  test("waits on it add no 'abort' listener, and its owner's abort runs each of them once, after the signal's own listeners", async () => {
    const owned = ownedAbort();
    const ran: string[] = [];
    owned.signal.addEventListener('abort', () => ran.push('listener'));
    whenAborted(owned.signal, () => ran.push('wait'));
    const stopped = whenAborted(owned.signal, () => ran.push('stopped wait'));
    const race = raceSignal(new Promise(() => {}), owned.signal).catch((e: unknown) => e);
    expect(getEventListeners(owned.signal, 'abort')).toHaveLength(1);
    stopped();
    owned.abort(new Error('first'));
    owned.abort(new Error('second'));
    expect(owned.signal.aborted).toBe(true);
    expect((owned.signal.reason as Error).message).toBe('first');
    expect(ran).toEqual(['listener', 'wait']);
    expect(((await race) as Error).message).toBe('first');
  });

  test('raced many times, an owned signal answers each race with its work; aborted without a reason, it carries the AbortError and runs a wait made then', async () => {
    const owned = ownedAbort();
    for (let i = 0; i < 50; i++) expect(await raceSignal(Promise.resolve(i), owned.signal)).toBe(i);
    const ran: number[] = [];
    whenAborted(owned.signal, () => ran.push(1));
    owned.abort();
    expect(ran).toEqual([1]);
    expect(owned.signal.reason).toBeInstanceOf(DOMException);
  });
});

describe('a LazyAbort: its AbortSignal made only when asked for', () => {
  test('aborted before anyone asked, it runs its waits once and the signal it makes then is aborted with the same reason', async () => {
    const lazy = new LazyAbort();
    const ran: string[] = [];
    whenAborted(lazy, () => ran.push('wait'));
    const race = raceSignal(new Promise(() => {}), lazy).catch((e: unknown) => e);
    const why = new Error('first');
    lazy.abort(why);
    lazy.abort(new Error('second'));
    expect(lazy.aborted).toBe(true);
    expect(lazy.reason).toBe(why);
    expect(ran).toEqual(['wait']);
    expect(await race).toBe(why);
    const signal = lazy.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(why);
    expect(lazy.signal).toBe(signal);
  });

  test("made before the abort, its signal's listeners run before the waits, waits on the signal add no listener and share the owner's, and no reason gives the AbortError", () => {
    const lazy = new LazyAbort();
    const signal = lazy.signal;
    const ran: string[] = [];
    signal.addEventListener('abort', () => ran.push('listener'));
    whenAborted(signal, () => ran.push('wait on the signal'));
    const stopped = whenAborted(lazy, () => ran.push('stopped'));
    whenAborted(lazy, () => ran.push('wait on the owner'));
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    stopped();
    lazy.abort();
    expect(ran).toEqual(['listener', 'wait on the signal', 'wait on the owner']);
    expect(signal.reason).toBeInstanceOf(DOMException);
    expect(lazy.reason).toBe(signal.reason);
  });
});
