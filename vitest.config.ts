import { configDefaults, defineConfig } from 'vitest/config';

// Test files share one worker process each (isolate: false) so that the embedded database is
// opened once per worker; every file still gets its own fresh schema (test/helpers/context.ts).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'sdk/test/**/*.test.ts'],
    // the fleet tests build a topology of their own: vitest.fleet.config.ts
    exclude: [...configDefaults.exclude, 'test/fleet/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // every answer a test receives is checked against docs/openapi.json
    setupFiles: ['test/helpers/openapi-setup.ts'],
    pool: 'forks',
    isolate: false,
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 240_000, // real processes start in seconds on a quiet machine, in tens of seconds on a loaded one
    hookTimeout: 240_000,
    teardownTimeout: 30_000,
  },
});
