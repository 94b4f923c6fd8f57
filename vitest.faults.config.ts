import { defineConfig } from 'vitest/config'

// The reliability and security suite (docs/reliability.md): real processes, kills, restarts and a
// hostile-input corpus. One file at a time: they load the machine on purpose.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
})
