import type { StandardStatus } from '../domain/statuses'
import type { SubscriptionRequest } from '../domain/subscription-input'
import type { JsonText, TaskJson } from '../domain/task-document'
import { intArray, textArray } from './array-literal'
import { Coalescer } from './coalescer'
import type { Database, Queryable } from './database'
import { INSERT_MISSING_SQL, TASK_BY_ID_SQL, TASK_BY_NUMBER_SQL, TASKS_BY_ID_MANY_SQL, TASKS_BY_NUMBER_MANY_SQL } from './task.sql'
import { newPageTokens } from './page-token'
import { statementsOf } from './statements'

export interface UpsertOutcome {
  taskId: number
  standardStatus: StandardStatus
  created: boolean
}

export interface InsertOutcome {
  taskId: number
  created: boolean
}

/** A batch's write: the batchMaxItems setting it was held to, and its outcomes (none if it was over). */
export interface BatchInsertResult {
  batchMaxItems: number
  outcomes: Map<string, InsertOutcome>
}

/** A (carrierCode, trackingNumber) pair: what makes a task unique within one user. */
export function taskKey(carrierCode: string, trackingNumber: string): string {
  return `${carrierCode}\u0000${trackingNumber}`
}

/** The interface's task (the query answer) as the database wrote it. */
export type TaskDocument = JsonText<TaskJson>

export interface UpsertRequest extends SubscriptionRequest {
  userId: number
}

const UPSERT_COLUMNS = 'user_id, carrier_code, tracking_number, callback_url, external_reference_no'

type UpsertRow = { id: number; user_id: number; carrier_code: string; tracking_number: string; standard_status: StandardStatus; created: boolean }

/** A task of one user: what a coalescer keeps apart. */
const userTaskKey = (userId: number, key: string) => `${userId}\u0000${key}`
const upsertKey = (r: { userId: number; carrierCode: string; trackingNumber: string }) => userTaskKey(r.userId, taskKey(r.carrierCode, r.trackingNumber))
/** A task's place in the order in which statements lock tasks, the same in every process and statement. */
interface LockKey {
  userId: number
  /** `taskKey`, worked out once (not per comparison). */
  taskKey: string
}
const lockOrder = (a: LockKey, b: LockKey) => a.userId - b.userId || (a.taskKey < b.taskKey ? -1 : a.taskKey > b.taskKey ? 1 : 0)
const toOutcome = (row: UpsertRow): UpsertOutcome => ({ taskId: row.id, standardStatus: row.standard_status, created: row.created })

// One group of reads in flight per kind of lookup: the queries arriving meanwhile wait for it
// and leave together. Measured at 50 connections, 1,000,000 tasks on PostgreSQL: 1 in flight
// 7,735 req/s (p99 21 ms), 4 in flight 5,078 (p99 33 ms); on the embedded database 1 and 4 were
// alike (8,900 and 8,400 req/s), 2 lower (6,100).
const READS_IN_FLIGHT = 1

/** A statement as `Database.query` takes it: text, values, name. */
type Statement = [text: string, values: unknown[], name: string]

/** An item of a batch subscribe (one user's items, distinct keys), with its keys worked out once. */
interface BatchRow extends LockKey {
  request: SubscriptionRequest
  /** `userTaskKey`: user and task. */
  key: string
  /** The item count of the batch it came in, which the setting is checked against. */
  batchSize: number
}
/** A batch's answer from a grouped statement: outcomes by position (none for a batch refused). */
type GroupedInsertResult = { batchMaxItems: number; outcomes: (InsertOutcome | undefined)[] }
type InsertRow = { ord: number; batch_max_items: number; id: number | null; created: boolean }

interface ByIdQuery {
  userId: number
  taskId: number
}
interface ByNumberQuery {
  userId: number
  trackingNumber: string
}

/** Subscription tasks: the subscribe upserts and the query endpoint's reads. */
export class TaskRepository {
  /** Concurrent single subscribes, grouped into multi-row upserts (see coalescer.ts). */
  private readonly upserts: Coalescer<UpsertRequest, UpsertOutcome>
  /** Concurrent batch subscribes, grouped into larger statements the same way. */
  private readonly batches: Coalescer<BatchRow[], GroupedInsertResult>
  /** Concurrent queries, grouped the same way: a statement's fixed cost (a round trip) was most of a query's cost. */
  private readonly byId: Coalescer<ByIdQuery, TaskDocument | undefined>
  private readonly byNumber: Coalescer<ByNumberQuery, TaskDocument | undefined>

  constructor(private readonly db: Database) {
    this.upserts = new Coalescer<UpsertRequest, UpsertOutcome>({
      // Two in flight measured best (one: fewer, larger groups but idle gaps; four: smaller groups).
      maxInFlight: 2,
      deadlineMs: db.timeouts.statementMs,
      maxGroup: 200,
      keys: (request) => [upsertKey(request)],
      run: (requests) => this.upsertMany(requests),
      runOne: async (request) => (await this.upsertMany([request]))[0]!,
    })
    this.batches = new Coalescer<BatchRow[], GroupedInsertResult>({
      // Two in flight, as for the single upserts: the next group is queued at the database when
      // one finishes.
      maxInFlight: 2,
      deadlineMs: db.timeouts.statementMs,
      // Rows: about ten batches of the default size.
      maxGroup: 1000,
      size: (rows) => rows.length,
      // A millisecond, or three batches. PostgreSQL, batch benchmark, four paired loads: 76,400-
      // 82,500 items/s against 75,200-76,500 without (single batches had been two thirds of the
      // statements); the embedded database alike either way; 2 ms did no better than 1.
      gather: { ms: 1, enough: 300 },
      keys: (rows) => rows.map((row) => row.key),
      run: (batches) => this.insertMissingMany(batches),
      runOne: async (batch) => (await this.insertMissingMany([batch]))[0]!,
    })
    this.byId = this.lookups<ByIdQuery>(
      (queries) => [TASKS_BY_ID_MANY_SQL, [intArray(queries.map((q) => q.userId)), intArray(queries.map((q) => q.taskId))], 'tasks_by_id_many'],
      ({ userId, taskId }) => [TASK_BY_ID_SQL, [userId, taskId], 'task_by_id'],
    )
    this.byNumber = this.lookups<ByNumberQuery>(
      (queries) => [
        TASKS_BY_NUMBER_MANY_SQL,
        [intArray(queries.map((q) => q.userId)), textArray(queries.map((q) => q.trackingNumber))],
        'tasks_by_number_many',
      ],
      ({ userId, trackingNumber }) => [TASK_BY_NUMBER_SQL, [userId, trackingNumber], 'task_by_number'],
    )
  }

  /** A kind of lookup: one statement for a lone query, one for a group (answers by `ord`). */
  private lookups<Q>(many: (queries: Q[]) => Statement, one: (query: Q) => Statement): Coalescer<Q, TaskDocument | undefined> {
    return new Coalescer<Q, TaskDocument | undefined>({
      maxInFlight: READS_IN_FLIGHT,
      maxGroup: 100,
      deadlineMs: this.db.timeouts.statementMs,
      run: async (queries) => {
        const rows = await this.db.query<{ ord: number; document: TaskDocument }>(...many(queries))
        const answers: (TaskDocument | undefined)[] = new Array(queries.length).fill(undefined)
        for (const row of rows) answers[row.ord - 1] = row.document
        return answers
      },
      runOne: async (query) => {
        const [row] = await this.db.query<{ document: TaskDocument }>(...one(query))
        return row?.document
      },
    })
  }

  /**
   * Single subscribe: creates the task or overwrites callbackUrl and externalReferenceNo.
   * `xmax = 0` holds only for a row the statement inserted. Concurrent calls share statements;
   * each gets the answer its own statement would have given.
   */
  upsert(userId: number, request: SubscriptionRequest): Promise<UpsertOutcome> {
    return this.upserts.submit({ ...request, userId })
  }

  /** Single subscribe in the caller's unit of work (a subscribe that sets the task's recipient too): the same statement, alone. */
  async upsertIn(tx: Queryable, userId: number, request: SubscriptionRequest): Promise<UpsertOutcome> {
    const { rows } = await tx.query<UpsertRow>(TASK_UPSERT_MANY, upsertParameters([{ ...request, userId }]), 'task_upsert_many')
    return toOutcome(rows[0]!)
  }

  private async upsertMany(requests: UpsertRequest[]): Promise<UpsertOutcome[]> {
    // Rows are locked in key order, the same order every process uses, so that two groups
    // sharing tasks wait for each other instead of deadlocking.
    const sorted = requests
      .map((request) => ({ userId: request.userId, taskKey: taskKey(request.carrierCode, request.trackingNumber), request }))
      .sort(lockOrder)
      .map(({ request }) => request)
    const rows = await this.db.query<UpsertRow>(TASK_UPSERT_MANY, upsertParameters(sorted), 'task_upsert_many')
    const byKey = new Map(rows.map((row) => [upsertKey({ userId: row.user_id, carrierCode: row.carrier_code, trackingNumber: row.tracking_number }), row]))
    return requests.map((r) => toOutcome(byKey.get(upsertKey(r))!))
  }

  /**
   * Batch subscribe: creates the tasks that do not exist and leaves existing ones exactly as they
   * are, in one statement whatever the batch size (concurrent batches share statements), unless
   * `batchSize` (the batch's item count) is over the batchMaxItems setting, read in that same
   * statement: then nothing is written. `requests` must hold distinct keys. Returns the setting
   * it applied and the outcome per key of what was written.
   */
  async insertMissing(userId: number, requests: SubscriptionRequest[], batchSize: number): Promise<BatchInsertResult> {
    const rows = batchRows(userId, requests, batchSize)
    return batchResult(rows, await this.batches.submit(rows))
  }

  /** Batch subscribe in the caller's unit of work (a batch that sets its new tasks' recipients too): the same statements, alone. */
  async insertMissingIn(tx: Queryable, userId: number, requests: SubscriptionRequest[], batchSize: number): Promise<BatchInsertResult> {
    const rows = batchRows(userId, requests, batchSize)
    const [result] = await this.insertMissingMany([rows], async (text, values, name) => (await tx.query<InsertRow>(text, values, name)).rows)
    return batchResult(rows, result!)
  }

  private async insertMissingMany(
    batches: BatchRow[][],
    query: (text: string, values: unknown[], name: string) => Promise<InsertRow[]> = (text, values, name) => this.db.query<InsertRow>(text, values, name),
  ): Promise<GroupedInsertResult[]> {
    const outcomes = new Map<string, InsertOutcome>()
    let batchMaxItems = 0
    // Lock order by key, so that two statements sharing tasks cannot deadlock each other.
    let pending = batches.flat().sort(lockOrder)
    // A task committed by a concurrent request after this statement's snapshot is skipped by
    // ON CONFLICT yet invisible to the lookup; such items come back without an id and are asked
    // again (the next statement sees them). Their batch was let through by the first statement's
    // setting: asked again as size 0, so a setting changed in between cannot refuse half a batch.
    for (let round = 0; round < 5 && pending.length > 0; round++) {
      const rows = await query(
        INSERT_MISSING_SQL,
        [
          intArray(pending.map((r) => r.userId)),
          textArray(pending.map((r) => r.request.carrierCode)),
          textArray(pending.map((r) => r.request.trackingNumber)),
          textArray(pending.map((r) => r.request.callbackUrl)),
          textArray(pending.map((r) => r.request.externalReferenceNo)),
          intArray(pending.map((r) => (round === 0 ? r.batchSize : 0))),
          textArray(newPageTokens(pending.length)),
        ],
        'task_insert_missing',
      )
      const next: typeof pending = []
      for (const row of rows) {
        const request = pending[row.ord - 1]!
        if (round === 0) {
          batchMaxItems = row.batch_max_items
          if (request.batchSize > batchMaxItems) continue // refused: nothing was written
        }
        if (row.id === null) next.push(request)
        else outcomes.set(request.key, { taskId: row.id, created: row.created })
      }
      pending = next
    }
    if (pending.length > 0) throw new Error(`batch subscribe could not settle ${pending.length} item(s)`)
    return batches.map((rows) => ({ batchMaxItems, outcomes: rows.map((row) => outcomes.get(row.key)) }))
  }

  /** The user's task with this id; another user's task is as absent as a missing one. */
  findById(userId: number, taskId: number): Promise<TaskDocument | undefined> {
    return this.byId.submit({ userId, taskId })
  }

  /** The user's newest task (largest id) with this tracking number, at any carrier. */
  findNewestByTrackingNumber(userId: number, trackingNumber: string): Promise<TaskDocument | undefined> {
    return this.byNumber.submit({ userId, trackingNumber })
  }
}

const batchRows = (userId: number, requests: SubscriptionRequest[], batchSize: number): BatchRow[] =>
  requests.map((request) => {
    const key = taskKey(request.carrierCode, request.trackingNumber)
    return { userId, request, taskKey: key, key: userTaskKey(userId, key), batchSize }
  })

const batchResult = (rows: BatchRow[], { batchMaxItems, outcomes }: GroupedInsertResult): BatchInsertResult => ({
  batchMaxItems,
  outcomes: new Map(rows.flatMap((row, i) => (outcomes[i] ? [[row.taskKey, outcomes[i]] as const] : []))),
})

const upsertParameters = (sorted: UpsertRequest[]) => [
  intArray(sorted.map((r) => r.userId)),
  textArray(sorted.map((r) => r.carrierCode)),
  textArray(sorted.map((r) => r.trackingNumber)),
  textArray(sorted.map((r) => r.callbackUrl)),
  textArray(sorted.map((r) => r.externalReferenceNo)),
  // A token for every row; an existing task keeps its own (DO UPDATE leaves it).
  textArray(newPageTokens(sorted.length)),
]

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const TASK_UPSERT_MANY = sql(
  'task_upsert_many',
  // The time is taken in the SELECT list, not in DO UPDATE: the same for one PostgreSQL, and the
  // form a distributed table accepts (docs/scaling.md).
  `INSERT INTO tracking_tasks (${UPSERT_COLUMNS}, page_token, updated_at)
   SELECT ${UPSERT_COLUMNS}, page_token, now()
     FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
          WITH ORDINALITY AS i (${UPSERT_COLUMNS}, page_token, ord)
    ORDER BY ord
   ON CONFLICT (user_id, carrier_code, tracking_number) DO UPDATE
      SET callback_url = EXCLUDED.callback_url,
          external_reference_no = EXCLUDED.external_reference_no,
          updated_at = EXCLUDED.updated_at
   RETURNING id, user_id, carrier_code, tracking_number, standard_status, (xmax = 0) AS created`,
)
