import { AppError } from '../domain/errors'

/**
 * Which failures mean "the database cannot serve you now" rather than "your statement is wrong",
 * and what the API's caller is told of each: 503 `unavailable`, a message that says what is
 * wrong, and when to try again. PostgreSQL's own words stay in the log (the error's `cause`).
 */

interface Unavailability {
  message: string
  retryAfterSeconds: number
}

const UNREACHABLE: Unavailability = { message: 'the database cannot be reached; retry shortly', retryAfterSeconds: 1 }
const RESTARTING: Unavailability = { message: 'the database is restarting; retry shortly', retryAfterSeconds: 1 }
const TOO_SLOW: Unavailability = { message: 'the database did not answer in time; retry shortly', retryAfterSeconds: 1 }

// Exhausted resources last longer than a restart: callers are asked to wait a little more.
const BY_SQLSTATE: Record<string, Unavailability> = {
  '53000': { message: 'the database is out of resources and cannot take this request now; retry later', retryAfterSeconds: 5 },
  '53100': { message: 'the database is out of disk space and cannot take writes now; retry later', retryAfterSeconds: 5 },
  '53200': { message: 'the database is out of memory; retry later', retryAfterSeconds: 5 },
  '53300': { message: 'the database has no free connection; retry shortly', retryAfterSeconds: 1 },
  '53400': { message: 'the database is at a configured limit; retry later', retryAfterSeconds: 5 },
  '58030': { message: 'the database cannot read or write its disk; retry later', retryAfterSeconds: 5 },
  // A standby answering after a failover, before it is promoted.
  '25006': { message: 'the database is read-only now (a failover may be under way); retry shortly', retryAfterSeconds: 1 },
  // statement_timeout: the server cancelled a statement past its deadline.
  '57014': TOO_SLOW,
  '57P01': RESTARTING, // admin_shutdown
  '57P02': RESTARTING, // crash_shutdown
  '57P03': RESTARTING, // cannot_connect_now: starting up or recovering
  '57P04': UNREACHABLE, // database_dropped
  '57P05': UNREACHABLE, // idle_session_timeout
}

// ENOENT: a Unix socket that is not there (the embedded server between its death and its restart).
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT'])

// pg's own words for a connection that broke, or could not be made in time.
const CONNECTION_MESSAGES =
  /Connection terminated|Client has encountered a connection error|Connection ended unexpectedly|Client was closed and is not queryable/i
const CONNECT_TIMEOUT_MESSAGES = /timeout exceeded when trying to connect|Connection terminated due to connection timeout/i

function unavailability(error: unknown): Unavailability | undefined {
  if (!(error instanceof Error)) return undefined
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') {
    if (BY_SQLSTATE[code]) return BY_SQLSTATE[code]
    if (code.startsWith('08') || CONNECTION_ERROR_CODES.has(code)) return UNREACHABLE
  }
  if (CONNECT_TIMEOUT_MESSAGES.test(error.message)) return { message: 'no database connection was free in time; retry shortly', retryAfterSeconds: 1 }
  if (CONNECTION_MESSAGES.test(error.message)) return UNREACHABLE
  return undefined
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailability(error) !== undefined
}

/** The error a caller sees: `unavailable` when the database cannot serve now, else the error itself. */
export function translateDatabaseError(error: unknown): unknown {
  if (error instanceof AppError) return error
  const reason = unavailability(error)
  return reason ? unavailable(reason.message, reason.retryAfterSeconds, error) : error
}

/** A statement or a wait for a connection that passed its deadline. */
export function deadlinePassed(what: string, ms: number): AppError {
  return unavailable(`the database did not answer ${what} within ${ms} ms; retry shortly`, 1)
}

function unavailable(message: string, retryAfterSeconds: number, cause?: unknown): AppError {
  const error = new AppError('unavailable', message, [], retryAfterSeconds)
  if (cause !== undefined) error.cause = cause
  return error
}
