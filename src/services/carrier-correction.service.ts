import { CarrierError } from '../carriers/carrier'
import { detectCarriers } from '../carriers/detection'
import { CARRIERS } from '../carriers/registry'
import { lockTaskToMove } from '../db/carrier-changes'
import { claimCorrections, finishCorrection, type ClaimedCorrection } from '../db/carrier-corrections'
import type { Database } from '../db/database'
import { answerFingerprint } from '../domain/answer-fingerprint'
import { correctionCandidates, correctionFound, type CorrectionOutcome, type CorrectionTry, type CorrectionTryOutcome } from '../domain/carrier-change'
import { AppError } from '../domain/errors'
import { moveAndTell } from './carrier-move'
import type { CarrierChannel } from './refresh.service'

/** Tasks tried a round, each claimed alone; each costs up to one request of each of its other candidates. */
const ROUND_TASKS = 20

/**
 * How long a claim holds its task: longer than its tries can take (a request per candidate, each
 * waiting for its carrier's budget: one every three minutes at GLS's 500 a day), so that another
 * worker never tries it while one is; a crashed worker's task waits this long, for a rule counted in hours.
 */
export const CORRECTION_LEASE_MS = 30 * 60_000

/** What "not found" is fingerprinted as: a task whose last answer was it has heard nothing else since. */
const NOT_FOUND = answerFingerprint(undefined)

/**
 * Auto-correct (docs/api.md, "Auto-correct"): a task still pending and unknown to its carrier after
 * its user's hours is tried once with each other available candidate of its number, best first,
 * each request under that carrier's budget and never while its circuit is open; the first that
 * knows the number takes the task, as a change with reason auto_correct. No transaction is open
 * while a carrier is asked: the claim and the finish are each their own.
 */
export class CarrierCorrectionService {
  constructor(
    private readonly db: Database,
    /** The carriers this process can ask: detection's candidates outside it are not available here. */
    private readonly channels: ReadonlyMap<string, CarrierChannel>,
    /** Called after a task was moved and made due now (wakes the refresh workers). */
    private readonly onTaskDue: () => void = () => {},
    /** Called after a move made deliveries (wakes the webhook workers). */
    private readonly onDeliveriesDue: () => void = () => {},
    private readonly leaseMs: number = CORRECTION_LEASE_MS,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** One round: claim a task, try it, finish it, up to ROUND_TASKS times. True when more may be waiting. */
  async runRound(): Promise<boolean> {
    for (let i = 0; i < ROUND_TASKS; i++) {
      const [claim] = await this.db.transaction((tx) => claimCorrections(tx, NOT_FOUND, 1, this.leaseMs))
      if (!claim) return false
      await this.finish(claim, await this.tryCandidates(claim))
    }
    return true
  }

  private async tryCandidates({ carrierCode, trackingNumber }: ClaimedCorrection): Promise<CorrectionTry[]> {
    const tried: CorrectionTry[] = []
    const candidates = detectCarriers(trackingNumber, CARRIERS, (code) => this.channels.has(code))
    for (const candidate of correctionCandidates(carrierCode, candidates)) {
      const outcome = await this.ask(candidate, trackingNumber)
      tried.push({ carrierCode: candidate, outcome })
      if (outcome === 'found') break
    }
    return tried
  }

  private async ask(carrierCode: string, trackingNumber: string): Promise<CorrectionTryOutcome> {
    const channel = this.channels.get(carrierCode)
    if (!channel || channel.budget.paused || (channel.circuit && channel.circuit.state(this.now().getTime()) !== 'closed')) return 'unavailable'
    await channel.budget.acquire()
    try {
      const lookup = (await channel.adapter.fetch([trackingNumber])).get(trackingNumber)
      return lookup === undefined ? 'failed' : lookup.found ? 'found' : 'not_found'
    } catch (error) {
      // The carrier's own loop learns of its outages by its own requests; a 429 still pauses it.
      if (error instanceof CarrierError && error.failure === 'rate_limited') channel.budget.pause(error.retryAfterMs ?? 1000)
      return 'failed'
    }
  }

  /** Moves the task to the carrier found, if it is still as it was claimed, and records what was tried. */
  private finish(claim: ClaimedCorrection, tried: CorrectionTry[]): Promise<void> {
    return this.db.transaction(async (tx) => {
      const task = await lockTaskToMove(tx, null, claim.taskId)
      if (!task) return
      const found = correctionFound(tried)
      let outcome: CorrectionOutcome = found === undefined ? 'not_found' : 'moved'
      if (task.carrierCode !== claim.carrierCode || !task.unknown) outcome = 'superseded'
      else if (found !== undefined) {
        try {
          const { told } = await moveAndTell(tx, task, found, 'auto_correct', this.now())
          tx.afterCommit(this.onTaskDue)
          if (told > 0) tx.afterCommit(this.onDeliveriesDue)
        } catch (error) {
          // Refused before anything was written: the user tracks the pair already, or the task has had its changes.
          if (!(error instanceof AppError)) throw error
          outcome = error.code === 'conflict' ? 'conflict' : 'superseded'
        }
      }
      await finishCorrection(tx, claim.taskId, outcome, tried)
    })
  }
}
