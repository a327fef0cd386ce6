// undici is loaded on first use: most tools never make a request, and start-up should not pay for
// it. One import for the process: every `import()` call resolves its specifier again (~60 µs).
let undici: Promise<typeof import('undici')> | undefined;

export function loadUndici(): Promise<typeof import('undici')> {
  // undici is CommonJS: in the bundled command its namespace may carry the exports on `default`
  undici ??= import('undici').then((m) => ('Pool' in m && typeof m.Pool === 'function' ? m : (m as unknown as { default: typeof m }).default));
  return undici;
}
