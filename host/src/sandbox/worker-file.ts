// Workers run compiled JavaScript. From dist/ the worker sits next to this module (or, from the
// bundled command, under dist/sandbox/worker); from the
// TypeScript sources (vitest) it is taken from the build output under <repo>/dist/sandbox.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SandboxLoadError } from './load-error.js';

let resolved: URL | undefined;

export function instanceWorkerFile(): URL {
  if (resolved) return resolved;
  const here = new URL('./worker/instance-worker.js', import.meta.url);
  // In the bundled command (scripts/bundle.mjs) this code runs from dist/cli/main.js.
  const candidates = import.meta.url.endsWith('.ts')
    ? [new URL('../../../dist/sandbox/worker/instance-worker.js', import.meta.url)]
    : [here, new URL('../sandbox/worker/instance-worker.js', import.meta.url)];
  for (const c of candidates) {
    if (existsSync(fileURLToPath(c))) {
      resolved = c;
      return c;
    }
  }
  throw new SandboxLoadError(
    'WORKER_MISSING',
    `sandbox worker script not found at ${candidates.map((c) => fileURLToPath(c)).join(', ')}; run \`npx tsc -p tsconfig.build.json\` (or \`make build\`) first`,
  );
}
