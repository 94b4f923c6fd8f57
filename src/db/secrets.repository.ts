import { randomBytes } from 'node:crypto'
import type { Database } from './database'
import { statementsOf } from './statements'

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
    const [row] = await this.db.query<{ value: Buffer }>(SECRET_MAKE, [name, randomBytes(32)])
    if (row) return row.value
    // Made by another process after this statement's snapshot: committed by now.
    const [made] = await this.db.query<{ value: Buffer }>(SECRET_READ, [name])
    return made!.value
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const SECRET_MAKE = sql(
  'secret_make',
  `WITH made AS (
     INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value
   )
   SELECT value FROM made UNION ALL SELECT value FROM service_secrets WHERE name = $1 LIMIT 1`,
)
const SECRET_READ = sql('secret_read', 'SELECT value FROM service_secrets WHERE name = $1')
