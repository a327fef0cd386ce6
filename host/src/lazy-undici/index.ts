// undici, loaded on first use and once per process: most tools never make a request and most
// approval channels never call back, so start-up should not pay for it; every `import()` resolves
// its specifier again (~60 µs). A leaf: the sandbox's HTTP gate and the approval callback both
// load undici here, so neither can get the bundle's shape of it wrong (docs/architecture.md §2).
import type { Pool } from 'undici';

let undici: Promise<typeof import('undici')> | undefined;
let pool: Promise<typeof Pool> | undefined;

/**
 * undici is CommonJS. Under tsc's output `import()` gives its named exports; in the esbuild bundle
 * the namespace carries them on `default` only, so a plain destructuring of `request` was undefined
 * in the shipped command. This takes whichever shape holds the exports.
 */
export function loadUndici(): Promise<typeof import('undici')> {
  undici ??= import('undici').then((m) =>
    'request' in m && typeof m.request === 'function' ? m : (m as unknown as { default: typeof m }).default,
  );
  return undici;
}

/** undici's Pool alone, for the sandbox's HTTP gate: the package's other parts stay unloaded (pool.ts). */
export function loadUndiciPool(): Promise<typeof Pool> {
  pool ??= import('./pool.js').then((m) => m.Pool);
  return pool;
}
