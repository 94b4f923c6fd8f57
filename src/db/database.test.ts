import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { isDatabaseUnavailable } from './database'

// What the API answers 503 `unavailable` for: a database it cannot reach now, whatever the way
// it is reached; never a query that is wrong.
describe('a database that cannot serve now', () => {
  it('is unavailable through a Unix socket that is not there (an embedded server restarting) or a refused port', async () => {
    for (const config of [{ host: '/nonexistent-socket-dir' }, { host: '127.0.0.1', port: 9 }]) {
      const client = new pg.Client({ ...config, user: 'x', database: 'x', connectionTimeoutMillis: 2000 })
      const error = await client.connect().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(isDatabaseUnavailable(error), JSON.stringify(config)).toBe(true)
    }
  })

  it('is unavailable on the server states of a shutdown, a crash or a restart, and not on a wrong query', () => {
    const sqlError = (code: string) => Object.assign(new Error('server says'), { code })
    for (const code of ['57P01', '57P02', '57P03', '08006', '53300']) expect(isDatabaseUnavailable(sqlError(code)), code).toBe(true)
    for (const code of ['42P01', '23505', '22P02']) expect(isDatabaseUnavailable(sqlError(code)), code).toBe(false)
  })
})
