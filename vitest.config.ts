import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'client/test/**/*.test.ts'],
    // The fault and hostile-input suite runs on its own: npm run test:faults.
    exclude: ['test/faults/**', 'node_modules/**'],
    // Child processes: each test file gets its own database, a copy of a template migrated once
    // per run on the run's server (test/support/global-setup.ts), and may spawn the service itself.
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
