// Download progress on stderr: a redrawn bar when stderr is a terminal, plain lines otherwise
// (logs stay readable), nothing with --quiet.
import type { Progress } from './http.js';

export type ProgressMode = 'bar' | 'lines' | 'quiet';

function size(n: number): string {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

export function createProgress(mode: ProgressMode, write: (text: string) => void): Progress | undefined {
  if (mode === 'quiet') return undefined;
  let what = '';
  let total: number | undefined;
  let received = 0;
  let lastDraw = 0;
  const draw = (): void => {
    const width = 24;
    if (total !== undefined && total > 0) {
      const frac = Math.min(1, received / total);
      const filled = Math.round(frac * width);
      write(
        `\r${what} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(frac * 100)).padStart(3)}% ${size(received)}/${size(total)}`,
      );
    } else {
      write(`\r${what} ${size(received)}`);
    }
  };
  return {
    start(w, t) {
      what = w;
      total = t;
      received = 0;
      lastDraw = 0;
      if (mode === 'bar') draw();
      else write(`downloading ${what}${total !== undefined ? ` (${size(total)})` : ''}\n`);
    },
    advance(bytes) {
      received += bytes;
      const now = Date.now();
      if (mode === 'bar' && now - lastDraw > 100) {
        lastDraw = now;
        draw();
      }
    },
    done() {
      if (mode === 'bar') {
        draw();
        write('\n');
      } else write(`downloaded ${what}: ${size(received)}\n`);
    },
  };
}
