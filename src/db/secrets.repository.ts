import { randomBytes } from 'node:crypto'
import type { Database } from './database'

/** Keys every process of a deployment shares (service_secrets): made once, by whichever process asks first. */
export class SecretsRepository {
  private readonly cache = new Map<string, Promise<Buffer>>()

  constructor(private readonly db: Database) {}

  /** The key `name`, 32 random bytes made on first use; read once per process. */
  get(name: string): Promise<Buffer> {
    let secret = this.cache.get(name)
    if (!secret) {
      secret = this.readOrMake(name)
      this.cache.set(name, secret)
      secret.catch(() => this.cache.delete(name))
    }
    return secret
  }

  private async readOrMake(name: string): Promise<Buffer> {
    const [row] = await this.db.query<{ value: Buffer }>(
      `WITH made AS (
         INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value
       )
       SELECT value FROM made UNION ALL SELECT value FROM service_secrets WHERE name = $1 LIMIT 1`,
      [name, randomBytes(32)],
    )
    if (row) return row.value
    // Made by another process after this statement's snapshot: committed by now.
    const [made] = await this.db.query<{ value: Buffer }>('SELECT value FROM service_secrets WHERE name = $1', [name])
    return made!.value
  }
}
