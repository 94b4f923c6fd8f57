import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The fault and hostile-input suite runs on its own: npm run test:faults.
    exclude: ['test/faults/**', 'node_modules/**'],
    // Child processes: each test file gets its own database (a PGlite worker thread, or a fresh
    // PostgreSQL database when DATABASE_URL is set) and may spawn the service itself.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
