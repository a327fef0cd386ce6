import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Scope } from '../../host/src/plugin/index.js';

/** A promise and the function that settles it. */
function latch(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('scope (the disposer stack)', () => {
  it('disposeInTurn releases newest first, each only after the newer one has finished', async () => {
    const scope = new Scope(pino({ level: 'silent' }));
    const order: string[] = [];
    const transportClosing = latch();
    scope.add('runtime', () => void order.push('runtime'));
    scope.add('core', () => void order.push('core'));
    scope.add('transport', async () => {
      order.push('transport started');
      await transportClosing.promise;
      order.push('transport closed');
    });
    const done = scope.disposeInTurn();
    await Promise.resolve();
    // the transport is still closing: nothing older has been touched
    expect(order).toEqual(['transport started']);
    transportClosing.open();
    await done;
    expect(order).toEqual(['transport started', 'transport closed', 'core', 'runtime']);
  });

  it('disposeInTurn releases each resource once, and a failing release does not stop the older ones', async () => {
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(String(JSON.parse(line).msg)) });
    const scope = new Scope(log);
    const released: string[] = [];
    scope.add('runtime', () => void released.push('runtime'));
    scope.add('secret file', () => Promise.reject(new Error('EPERM')));
    scope.add('server', () => {
      released.push('server');
      throw new Error('already closed');
    });
    await Promise.all([scope.disposeInTurn(), scope.disposeInTurn(), scope.dispose()]);
    expect(released).toEqual(['server', 'runtime']);
    expect(warnings).toEqual(['undo of server failed', 'undo of secret file failed']);
    expect(scope.disposed).toBe(true);
  });
});
