import { defineConfig } from 'vitest/config';

// The fleet tests (test/fleet): one topology of real processes for the whole run (npm run fleet),
// so one file at a time in one worker; `npm test` leaves them out.
export default defineConfig({
  test: {
    include: ['test/fleet/**/*.test.ts'],
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 240_000,
    teardownTimeout: 120_000,
  },
});
