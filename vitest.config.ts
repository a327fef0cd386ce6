import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // dist/ and the wasm modules are made fresh once, before any test (no test builds them itself)
    globalSetup: ['test/global-setup.ts'],
    // Sandbox tests spawn worker threads and child processes; forks keep them apart.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests (and the CLIs they spawn) never touch the user's real store or audit log.
    env: { TOOLGATE_HOME: join(tmpdir(), `toolgate-test-home-${process.pid}`) },
  },
});
