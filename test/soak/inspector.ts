// Talks to a child started with --inspect (DevTools protocol), so a memory check can force a full
// garbage collection and read the child's own heap figures: it then measures what is still
// reachable rather than when V8 last happened to collect.
import { WebSocket } from 'undici';

export function inspectorUrl(stderr: string): string | undefined {
  return /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/.exec(stderr)?.[1];
}

async function send(url: string, method: string, params: Record<string, unknown> = {}): Promise<unknown> {
  const ws = new WebSocket(url);
  try {
    return await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`inspector did not answer ${method}`)), 15_000);
      ws.addEventListener('open', () => ws.send(JSON.stringify({ id: 1, method, params })));
      ws.addEventListener('message', (ev) => {
        const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown };
        if (msg.id === 1) {
          clearTimeout(timer);
          resolve(msg.result);
        }
      });
      ws.addEventListener('error', () => {
        clearTimeout(timer);
        reject(new Error('inspector connection failed'));
      });
    });
  } finally {
    ws.close();
  }
}

export async function collectGarbage(url: string): Promise<void> {
  await send(url, 'HeapProfiler.collectGarbage');
}

/** The child's process.memoryUsage(), in MiB. */
export async function memoryUsage(url: string): Promise<Record<string, number>> {
  const r = (await send(url, 'Runtime.evaluate', {
    expression:
      'JSON.stringify(Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 104857.6) / 10])))',
    returnByValue: true,
  })) as { result?: { value?: string } };
  return JSON.parse(r.result?.value ?? '{}') as Record<string, number>;
}
