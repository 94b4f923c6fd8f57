import { Coalescer } from '../db/coalescer'
import type { Database } from '../db/database'
import { endpointsOf, insertDeliveries, type DeliveryToInsert } from '../db/outbox-writes'
import { messageAudienceOf } from '../db/recipient.repository'
import type { ClaimedTask } from '../db/refresh.repository'
import { insertEvents, lockClaimedTasks, scheduleFetched, updateTasks } from '../db/refresh-writes'
import { answerFingerprint } from '../domain/answer-fingerprint'
import { fullEventToJson, parseDocument } from '../domain/task-document'
import { deliveriesOfChange, eventsOfChange, type ChangeFacts } from '../domain/task-events'
import { isTerminal, resolveUpdate, type CarrierSnapshot, type TaskUpdate } from '../domain/tracking-update'
import { advanceTransit, laneField, type Delivery, type TransitState } from '../domain/transit-times'
import { recordDeliveries } from '../db/transit-writes'
import type { HeldTask } from '../db/refresh-writes'

/** One task's successful fetch, as the refresh applies it. */
export interface FetchedTask {
  task: ClaimedTask
  /** What the carrier said of the number; undefined: it does not know it. */
  snapshot: CarrierSnapshot | undefined
  fetchedAt: Date
  /** When the task is due next if it stays active. */
  nextRefreshInMs: number
  /**
   * When a task this makes terminal is fetched once more (a push's news checked against the
   * carrier's whole answer); without it a terminal task is never fetched again.
   */
  terminalRefreshInMs?: number
}

/** A task this makes terminal and schedules for one more fetch. */
const reconciledOnce = (item: FetchedTask, update: TaskUpdate) => isTerminal(update.standardStatus) && item.terminalRefreshInMs !== undefined

/**
 * `update`: the task's new state, undefined when the answer was the one its state was decided from
 * (nothing but the schedule written); `notified`: deliveries made for the change.
 */
export type ApplyOutcome = { applied: false } | { applied: true; update: TaskUpdate | undefined; notified: number }

/**
 * The refresh's unit of work: the answers of one carrier request (with those of the requests that
 * arrive while one is being applied) in one short transaction, whatever the number of tasks. An
 * answer the task's state was already decided from writes only its schedule row. For the others:
 * lock the tasks still due when claimed, merge all events in one statement, decide each task's
 * new state (domain/tracking-update.ts) and whom its change tells (domain/task-events.ts), write
 * every task in one statement, and record the deliveries in the outbox in one more. Nothing here
 * waits on a carrier.
 */
export class RefreshApply {
  /** No task is in two answers (a claim holds it once), so answers need no keys to be grouped. */
  private readonly applies: Coalescer<FetchedTask[], ApplyOutcome[]>

  constructor(
    private readonly db: Database,
    /** No new event (or not found) for this long: expired (EXPIRE_AFTER_DAYS). */
    private readonly expireAfterMs: number,
  ) {
    this.applies = new Coalescer<FetchedTask[], ApplyOutcome[]>({
      // A few transactions side by side, each of up to 20 full requests' answers.
      maxInFlight: 4,
      maxGroup: 600,
      size: (items) => items.length,
      // A carrier that answers one number a request sends many small answers: while a transaction
      // runs they wait a moment to share the next one, as a 30-number request's answers do.
      gather: { ms: 10, enough: 30 },
      run: async (answers) => {
        const outcomes = await this.applyTogether(answers.flat())
        let from = 0
        return answers.map((items) => outcomes.slice(from, (from += items.length)))
      },
      runOne: (items) => this.applyTogether(items),
    })
  }

  /** The outcome of each item, in order; applied: false when its lease was lost (to another worker, a stop, a delete). */
  apply(items: FetchedTask[]): Promise<ApplyOutcome[]> {
    if (items.length === 0) return Promise.resolve([])
    return this.applies.submit(items)
  }

  private applyTogether(items: FetchedTask[]): Promise<ApplyOutcome[]> {
    const fingerprints = new Map(items.map((item) => [item, answerFingerprint(item.snapshot)]))
    // An answer like the one the task's state was decided from, before its expiry, would be decided
    // to the same state again: its fetch writes the schedule row and nothing else.
    const quiet: FetchedTask[] = []
    const deciding: FetchedTask[] = []
    for (const item of items) {
      const unchanged = fingerprints.get(item) === item.task.fingerprint && item.fetchedAt.getTime() - item.task.quietSince.getTime() < this.expireAfterMs
      if (unchanged) quiet.push(item)
      else deciding.push(item)
    }
    return this.db.transaction(async (tx) => {
      const held = await lockClaimedTasks(
        tx,
        deciding.map((i) => i.task),
      )
      const mine = deciding.filter((i) => held.has(i.task.id))
      const added = await insertEvents(
        tx,
        mine.map((item) => ({ taskId: item.task.id, events: item.snapshot?.events ?? [] })),
      )
      const learned: Delivery[] = []
      const decided = mine.map((item) => {
        const before = held.get(item.task.id)!
        const newEvents = added.get(item.task.id) ?? []
        const update = resolveUpdate(before, item.snapshot, { now: item.fetchedAt, newEventCount: newEvents.length, expireAfterMs: this.expireAfterMs })
        const facts: ChangeFacts = { previous: before, update, newEventCount: newEvents.length }
        const transit = advanceTransit(before.transit, { newEvents, milestone: update.milestone, estimatedDeliveryAt: update.estimatedDeliveryAt })
        if (transit.delivered) learned.push(deliveryOf(before, update, transit.state, transit.delivered))
        return { item, before, facts, newEvents, transit: transit.state, tells: eventsOfChange(facts).length > 0 }
      })
      const fetched = await scheduleFetched(
        tx,
        quiet.map(({ task, nextRefreshInMs }) => ({ id: task.id, dueAt: task.dueAt, leaseToken: task.leaseToken, nextRefreshInMs })),
      )
      // Endpoints are looked up only for the users with something to tell; recipients only for
      // the tasks whose milestone moved (the messages' triggers).
      const endpoints = await endpointsOf(
        tx,
        decided.filter((d) => d.tells).map((d) => d.before.userId),
      )
      const recipients = await messageAudienceOf(
        tx,
        decided.filter((d) => d.facts.update.milestoneChanged).map((d) => d.item.task.id),
      )
      const written = await updateTasks(
        tx,
        decided.map(({ item, before, facts, newEvents, transit, tells }) => ({
          id: item.task.id,
          update: facts.update,
          transit,
          gainedEvents: newEvents.length > 0,
          // A terminal task fetched once more is decided by that fetch whatever it says (no
          // fingerprint to find it unchanged and schedule it again), and then never fetched.
          fingerprint: reconciledOnce(item, facts.update) ? null : fingerprints.get(item)!,
          nextRefreshInMs: isTerminal(facts.update.standardStatus) ? (item.terminalRefreshInMs ?? null) : item.nextRefreshInMs,
          tells,
          full: tells && endpoints.has(before.userId),
        })),
      )
      const after = new Map(written.map((task) => [task.id, task]))
      const deliveries: DeliveryToInsert[] = []
      const outcomes = new Map<FetchedTask, ApplyOutcome>()
      for (const item of quiet) {
        if (fetched.has(item.task.id)) outcomes.set(item, { applied: true, update: undefined, notified: 0 })
      }
      for (const { item, before, facts, newEvents } of decided) {
        const told = after.get(item.task.id)
        const userEndpoints = endpoints.get(before.userId) ?? []
        const planned = told
          ? deliveriesOfChange(
              {
                ...facts,
                task: told.task,
                full: told.full ? parseDocument(told.full) : undefined,
                // As the full task writes them: only an endpoint reads them.
                newEvents: told.full ? newEvents.map(fullEventToJson) : [],
                newestEventAt: newestEventAt(item.snapshot),
              },
              { endpoints: userEndpoints, recipient: recipients.get(item.task.id) },
              item.fetchedAt,
            )
          : []
        for (const delivery of planned) deliveries.push({ ...delivery, taskId: item.task.id, userId: before.userId })
        outcomes.set(item, { applied: true, update: facts.update, notified: planned.length })
      }
      await insertDeliveries(tx, deliveries)
      await recordDeliveries(tx, learned)
      return items.map((item) => outcomes.get(item) ?? { applied: false })
    })
  }
}

/** The time of the newest event of a carrier's answer, null when it has none. */
function newestEventAt(snapshot: CarrierSnapshot | undefined): Date | null {
  let newest: Date | null = null
  for (const event of snapshot?.events ?? []) if (newest === null || event.eventTime > newest) newest = event.eventTime
  return newest
}

/** The delivery a task's change teaches: its lane as the change leaves its addresses. */
function deliveryOf(before: HeldTask, update: TaskUpdate, transit: TransitState, delivered: { at: Date; transitHours: number }): Delivery {
  const eta = transit.firstEstimatedDeliveryAt
  return {
    userId: before.userId,
    lane: {
      carrierCode: before.lane.carrierCode,
      originCountry: update.originAddress ? laneField(update.originAddress.country) : before.lane.originCountry,
      originState: update.originAddress ? laneField(update.originAddress.state) : before.lane.originState,
      destinationCountry: update.destinationAddress ? laneField(update.destinationAddress.country) : before.lane.destinationCountry,
      destinationState: update.destinationAddress ? laneField(update.destinationAddress.state) : before.lane.destinationState,
    },
    deliveredAt: delivered.at,
    transitHours: delivered.transitHours,
    withEta: eta !== null,
    onTime: eta !== null && delivered.at <= eta,
    passedException: transit.passedException,
  }
}
