// Forces a full garbage collection in a child started with --inspect, through the DevTools
// protocol, so a memory check measures what is still reachable rather than when V8 last collected.
import { WebSocket } from 'undici';

export function inspectorUrl(stderr: string): string | undefined {
  return /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/.exec(stderr)?.[1];
}

export async function collectGarbage(url: string): Promise<void> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('inspector did not answer')), 10_000);
    ws.addEventListener('open', () => ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })));
    ws.addEventListener('message', (ev) => {
      const msg = JSON.parse(String(ev.data)) as { id?: number };
      if (msg.id === 1) {
        clearTimeout(timer);
        resolve();
      }
    });
    ws.addEventListener('error', () => {
      clearTimeout(timer);
      reject(new Error('inspector connection failed'));
    });
  });
  ws.close();
}
