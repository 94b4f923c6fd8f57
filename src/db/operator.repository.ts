import type { Role } from '../domain/operators'
import type { Database, Queryable } from './database'
import { statementsOf } from './statements'

export interface OperatorRow {
  id: number
  email: string
  role: Role
  created_at: Date
  disabled_at: Date | null
  /** Sessions live now. */
  sessions: number
}

export interface OperatorCredentials {
  id: number
  email: string
  role: Role
  password_hash: string
  disabled: boolean
  /** Failed sign-ins in the current window (0 once the window has passed). */
  failed_sign_ins: number
  failures_reset_at: Date | null
}

export interface OperatorSessionRow {
  created_at: Date
  expires_at: Date
  address: string | null
}

/** The console's operators (their passwords as scrypt hashes) and their failed sign-ins. */
export class OperatorRepository {
  constructor(private readonly db: Database) {}

  /** The new operator's id; undefined when another has this email (compared without case). */
  async create(tx: Queryable, email: string, role: Role, passwordHash: string): Promise<number | undefined> {
    const {
      rows: [row],
    } = await tx.query<{ id: number }>(OPERATOR_CREATE, [email, role, passwordHash])
    return row?.id
  }

  list(): Promise<OperatorRow[]> {
    return this.db.query<OperatorRow>(OPERATORS_LIST)
  }

  async find(operatorId: number): Promise<OperatorRow | undefined> {
    const [row] = await this.db.query<OperatorRow>(OPERATOR_GET, [operatorId])
    return row
  }

  async credentials(email: string): Promise<OperatorCredentials | undefined> {
    const [row] = await this.db.query<OperatorCredentials>(OPERATOR_CREDENTIALS, [email])
    return row
  }

  /** Counts a failed sign-in in the window (a new window when the last one passed). */
  async failedSignIn(operatorId: number, windowMs: number): Promise<void> {
    await this.db.query(OPERATOR_FAILED_SIGN_IN, [operatorId, windowMs])
  }

  async signedIn(tx: Queryable, operatorId: number): Promise<void> {
    await tx.query(OPERATOR_SIGNED_IN, [operatorId])
  }

  /** Changes the role, or disables (true) or enables (false) the operator; false when there is none. */
  async update(tx: Queryable, operatorId: number, change: { role?: Role; disabled?: boolean }): Promise<boolean> {
    const { rows } = await tx.query(OPERATOR_UPDATE, [operatorId, change.role ?? null, change.disabled ?? null])
    return rows.length === 1
  }

  async setPassword(tx: Queryable, operatorId: number, passwordHash: string): Promise<boolean> {
    const { rows } = await tx.query(OPERATOR_SET_PASSWORD, [operatorId, passwordHash])
    return rows.length === 1
  }

  /** Ends the operator's sessions, all or all but the one whose id hash is `keep`; how many ended. */
  async revokeSessions(tx: Queryable, operatorId: number, keep?: Buffer): Promise<number> {
    const { rows } = await tx.query(OPERATOR_REVOKE_SESSIONS, [operatorId, keep ?? null])
    return rows.length
  }

  sessions(operatorId: number): Promise<OperatorSessionRow[]> {
    return this.db.query<OperatorSessionRow>(OPERATOR_SESSIONS, [operatorId])
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const OPERATOR_CREATE = sql(
  'operator_create',
  `INSERT INTO operators (email, role, password_hash) VALUES ($1, $2, $3)
   ON CONFLICT (lower(email)) DO NOTHING
   RETURNING id`,
)
const OPERATOR_COLUMNS = `o.id, o.email, o.role, o.created_at, o.disabled_at,
          (SELECT count(*)::int FROM console_sessions s WHERE s.operator_id = o.id AND s.expires_at > now()) AS sessions`
const OPERATORS_LIST = sql('operators_list', `SELECT ${OPERATOR_COLUMNS} FROM operators o ORDER BY o.id`)
const OPERATOR_GET = sql('operator_get', `SELECT ${OPERATOR_COLUMNS} FROM operators o WHERE o.id = $1`)
const OPERATOR_CREDENTIALS = sql(
  'operator_credentials',
  `SELECT id, email, role, password_hash, disabled_at IS NOT NULL AS disabled,
          CASE WHEN failures_reset_at > now() THEN failed_sign_ins ELSE 0 END AS failed_sign_ins, failures_reset_at
     FROM operators WHERE lower(email) = lower($1)`,
)
const OPERATOR_FAILED_SIGN_IN = sql(
  'operator_failed_sign_in',
  `UPDATE operators
      SET failed_sign_ins = CASE WHEN failures_reset_at > now() THEN failed_sign_ins + 1 ELSE 1 END,
          failures_reset_at = CASE WHEN failures_reset_at > now() THEN failures_reset_at ELSE now() + make_interval(secs => $2::float8 / 1000) END
    WHERE id = $1`,
)
const OPERATOR_SIGNED_IN = sql('operator_signed_in', 'UPDATE operators SET failed_sign_ins = 0, failures_reset_at = NULL WHERE id = $1')
const OPERATOR_UPDATE = sql(
  'operator_update',
  `UPDATE operators
      SET role = COALESCE($2, role),
          disabled_at = CASE WHEN $3::boolean IS NULL THEN disabled_at WHEN $3 THEN COALESCE(disabled_at, now()) END
    WHERE id = $1
   RETURNING id`,
)
const OPERATOR_SET_PASSWORD = sql('operator_set_password', 'UPDATE operators SET password_hash = $2 WHERE id = $1 RETURNING id')
const OPERATOR_REVOKE_SESSIONS = sql(
  'operator_revoke_sessions',
  'DELETE FROM console_sessions WHERE operator_id = $1 AND id_hash IS DISTINCT FROM $2 RETURNING id_hash',
)
const OPERATOR_SESSIONS = sql(
  'operator_sessions',
  'SELECT created_at, expires_at, address FROM console_sessions WHERE operator_id = $1 AND expires_at > now() ORDER BY created_at DESC',
)
