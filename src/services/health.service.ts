import { AppError } from '../domain/errors'
import type { Database } from '../db/database'

const PING_TIMEOUT_MS = 2_000

export type CarrierModes = Record<string, 'live' | 'simulator'>

export class HealthService {
  constructor(
    private readonly db: Database,
    /** Which carriers are served by the built-in simulator (said in /healthz and the start-up log). */
    readonly carrierModes: CarrierModes = {},
  ) {}

  get databaseKind() {
    return this.db.kind
  }

  /** Throws `unavailable` unless the database answers within a couple of seconds. */
  async checkDatabase(): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AppError('unavailable', 'the database did not answer in time')), PING_TIMEOUT_MS)
    })
    try {
      await Promise.race([this.db.query('SELECT 1'), timeout])
    } finally {
      clearTimeout(timer)
    }
  }
}
