import { AppError } from '../domain/errors'
import type { Database } from '../db/database'
import type { CircuitView } from '../domain/circuit-breaker'
import type { CarrierMode } from './carrier-catalog.service'

const PING_TIMEOUT_MS = 2_000

export type CarrierModes = Record<string, CarrierMode>

export class HealthService {
  constructor(
    private readonly db: Database,
    /** Which carriers are served by the built-in simulator (said in /healthz and the start-up log). */
    readonly carrierModes: CarrierModes = {},
    /** The carriers' circuits, in a process that refreshes (ROLE=all or worker). */
    private readonly circuits: () => Record<string, CircuitView> = () => ({}),
  ) {}

  /** Each carrier this process refreshes, with its circuit: an open one is a carrier outage. */
  carrierCircuits(): Record<string, CircuitView> {
    return this.circuits()
  }

  get databaseKind() {
    return this.db.kind
  }

  /**
   * Throws `unavailable` unless the database answers within a couple of seconds; its message says
   * why when the process knows (the embedded server being started again, a full disk).
   */
  async checkDatabase(): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AppError('unavailable', 'the database did not answer in time', [], 1)), PING_TIMEOUT_MS)
    })
    try {
      await Promise.race([this.db.ping(), timeout])
    } catch (error) {
      const outage = this.db.outage()
      if (error instanceof AppError && outage) throw new AppError(error.code, `${error.message}: ${outage}`, [], error.retryAfterSeconds)
      throw error
    } finally {
      clearTimeout(timer)
    }
  }
}
