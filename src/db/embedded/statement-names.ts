import pg from 'pg'

/**
 * Prepared-statement names for connections that share one session. PGlite has one session for
 * every socket connection, so a statement one connection prepares exists for the others too, and
 * a client preparing the same name again fails ("prepared statement already exists"): `pg`
 * knows only the names its own connection prepared.
 *
 * Each connection gets a prefix of its own (`c1_`, `c2_`, ...). A new connection first drops the
 * statements of connections that are gone, so failures and reconnections do not pile them up.
 */
export class StatementNames {
  private readonly prefixes = new Map<pg.ClientBase, string>()
  private connections = 0

  /** For the pool's onConnect: gives `client` its prefix, and drops gone connections' statements. */
  async claim(client: pg.ClientBase): Promise<void> {
    const prefix = `c${++this.connections}_`
    this.prefixes.set(client, prefix)
    try {
      const { rows } = await client.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name ~ '^c[0-9]+_'`)
      const live = new Set(this.prefixes.values())
      for (const { name } of rows) {
        if (!live.has(name.slice(0, name.indexOf('_') + 1))) await client.query(`DEALLOCATE ${pg.escapeIdentifier(name)}`)
      }
    } catch (error) {
      this.prefixes.delete(client)
      throw error
    }
  }

  /** For the pool's 'remove' event: the connection is gone, its statements can be dropped. */
  release(client: pg.ClientBase): void {
    this.prefixes.delete(client)
  }

  /** The name `client` prepares `name` under. */
  nameFor(client: pg.ClientBase, name: string): string {
    const prefix = this.prefixes.get(client)
    if (prefix === undefined) throw new Error('a connection that was not claimed')
    return prefix + name
  }
}
