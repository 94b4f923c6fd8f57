import { emailProblem } from '../domain/email-address'
import type { CarrierEnvironment } from '../carriers/carrier-plugin'
import { CARRIERS, ROUTES } from '../carriers/registry'
import { parseRequestBudget, requestsPerSecond, type RequestBudget } from '../domain/request-budget'
import { parseRetrySchedule } from '../domain/webhook-schedule'

/**
 * The service's configuration, read once from the environment (README, Configuration).
 * Every knob has a default that makes `npm start` work on a fresh clone.
 */
export interface Config {
  port: number
  host: string
  /** Where the public tracking pages are reached, without a trailing slash (PUBLIC_BASE_URL; default http://{HOST}:{PORT}). */
  publicBaseUrl: string
  /** PostgreSQL connection string; undefined means the embedded database under `dataDir`. */
  databaseUrl: string | undefined
  dataDir: string
  /** Enables the admin API; undefined means `/admin` answers 404 everywhere. */
  adminToken: string | undefined
  logLevel: string
  production: boolean
  /** How long a verified API token stays cached; bounds how late a revocation takes effect. */
  tokenCacheTtlMs: number
  /** Connections the process keeps to the database. */
  databasePoolSize: number
  /** The longest one statement may run, and the longest a wait for a connection may take. */
  databaseTimeouts: { statementMs: number; connectMs: number }
  rateLimits: { perTokenPerSecond: number; perAddressPerSecond: number }
  /** Longest a SIGTERM waits for in-flight requests and attempts before exiting anyway. */
  shutdownTimeoutMs: number
  /** all: API and workers in one process; api: HTTP only; worker: refresh (and ops endpoints) only. */
  role: 'all' | 'api' | 'worker'
  pollIntervalMs: number
  /** The cadence of tasks read through a route (ROUTE_POLL_INTERVAL_SECONDS): slow, pushes bring the changes. */
  routePollIntervalMs: number
  /**
   * The cadence of carriers served by the simulator: POLL_INTERVAL_SECONDS when set, else the
   * simulator's step, so that a simulated story moves while someone watches.
   */
  simulatorPollIntervalMs: number
  expireAfterMs: number
  /** How often a worker looks for due tasks when nothing woke it. */
  refreshPollMs: number
  /** Tasks a worker claims per round. */
  refreshClaimLimit: number
  /** How long a refresh claim holds its tasks; a crashed worker's tasks are due again after it. */
  refreshLeaseMs: number
  /** ROLE=all: requests in flight at which the API counts as saturated and the refresh yields to it (0: never). */
  apiFirstInFlight: number
  /** Serves the Model Context Protocol at POST /mcp (MCP_ENABLED; docs/mcp.md). */
  mcpEnabled: boolean
  /** How often a worker looks for stuck pending tasks to auto-correct (docs/api.md, "Auto-correct"). */
  carrierCorrectionPollMs: number
  carrierTimeoutMs: number
  /** Each carrier and route of the registry by its code, from the variables its plugin names. */
  carriers: Record<string, CarrierSettings>
  /** The push services of carriers that have one (UPS Track Alert), by carrier code. */
  pushes: Record<string, PushConfig>
  /** How long each stage of a simulated story lasts, for carriers served by the simulator. */
  simulatorStepMs: number
  webhook: {
    /** Waits after attempt 1, 2, … (WEBHOOK_RETRY_SCHEDULE, seconds). */
    scheduleMs: number[]
    timeoutMs: number
    allowPrivateTargets: boolean
    concurrency: number
    hostConcurrency: number
    hostConcurrencyMax: number
    pollMs: number
  }
  /** The customer's email (docs/notifications.md); undefined without SMTP_URL: nothing is sent, messages wait in the outbox. */
  email: { smtpUrl: string; from: string; timeoutMs: number; concurrency: number } | undefined
  /** The customer's SMS through Twilio (docs/notifications.md); undefined without TWILIO_ACCOUNT_SID. */
  sms: SmsSettings | undefined
}

export interface SmsSettings {
  accountSid: string
  authToken: string
  /** A number in E.164, or a Messaging Service's sid (MG…). */
  from: string
  /** Twilio's API origin (TWILIO_API_URL, default https://api.twilio.com). */
  apiUrl: string
  timeoutMs: number
  concurrency: number
}

export interface CarrierSettings {
  apiUrl: string
  /** Every credential the carrier needs, or undefined when any is missing (then it is simulated). */
  credentials: Record<string, string> | undefined
  requestBudget: RequestBudget
  /** The budget as a rate. */
  requestsPerSecond: number
}

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return fallback
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`)
  return value
}

function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim()
  return raw ? raw : undefined
}

/** A carrier's push service, from `<PREFIX>`, `<PREFIX>_SECRET`, `_VERSION`, `_CLIENT_ID`, `_RECONCILE_SECONDS` (docs/carriers.md). */
export interface PushConfig {
  /** off: never; else on when the secret is set, or when the carrier runs on the simulator. */
  off: boolean
  /** Ours: what the carrier presents with each push (v1's credential, v2's OAuth client secret). */
  secret: string | undefined
  version: string
  clientId: string
  /** A subscribed task is fetched this often, to reconcile. */
  reconcileMs: number
}

function pushConfig(env: NodeJS.ProcessEnv, prefix: string, versions: readonly string[]): PushConfig {
  const secret = optional(env, `${prefix}_SECRET`)
  if (secret !== undefined && secret.length < 32)
    throw new ConfigError(`${prefix}_SECRET must be at least 32 characters (a random secret of this installation)`)
  return {
    off: oneOf(env, prefix, ['on', 'off'] as const, 'on') === 'off',
    secret,
    version: oneOf(env, `${prefix}_VERSION`, versions, versions[0]!),
    clientId: optional(env, `${prefix}_CLIENT_ID`) ?? 'tracking-service',
    reconcileMs: integer(env, `${prefix}_RECONCILE_SECONDS`, 43_200, 1, 14 * 86_400) * 1000,
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const adminToken = optional(env, 'ADMIN_TOKEN')
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters long')
  }
  const pollIntervalMs = integer(env, 'POLL_INTERVAL_SECONDS', 7200, 1, 30 * 86_400) * 1000
  const simulatorStepMs = integer(env, 'SIMULATOR_STEP_SECONDS', 60, 0, 86_400) * 1000
  const port = integer(env, 'PORT', 3000, 0, 65535)
  const host = optional(env, 'HOST') ?? '127.0.0.1'
  return {
    port,
    host,
    publicBaseUrl: publicBaseUrl(optional(env, 'PUBLIC_BASE_URL') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`),
    databaseUrl: optional(env, 'DATABASE_URL'),
    dataDir: optional(env, 'DATA_DIR') ?? './data',
    adminToken,
    logLevel: optional(env, 'LOG_LEVEL') ?? 'info',
    production: env.NODE_ENV === 'production',
    tokenCacheTtlMs: integer(env, 'TOKEN_CACHE_TTL_MS', 2000, 0, 60_000),
    // Two at least: a worker's push round holds one connection (its claim) while it applies on another.
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 2, 200),
    databaseTimeouts: {
      statementMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5_000, 100, 600_000),
      connectMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
    },
    rateLimits: {
      perTokenPerSecond: integer(env, 'RATE_LIMIT_PER_TOKEN', 50, 0, 1_000_000),
      perAddressPerSecond: integer(env, 'RATE_LIMIT_PER_ADDRESS', 100, 0, 1_000_000),
    },
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 20_000, 0, 600_000),
    role: oneOf(env, 'ROLE', ['all', 'api', 'worker'] as const, 'all'),
    pollIntervalMs,
    routePollIntervalMs: integer(env, 'ROUTE_POLL_INTERVAL_SECONDS', 21_600, 1, 30 * 86_400) * 1000,
    simulatorPollIntervalMs: optional(env, 'POLL_INTERVAL_SECONDS') !== undefined || simulatorStepMs === 0 ? pollIntervalMs : simulatorStepMs,
    expireAfterMs: integer(env, 'EXPIRE_AFTER_DAYS', 30, 1, 3650) * 86_400_000,
    refreshPollMs: integer(env, 'REFRESH_POLL_MS', 1000, 50, 600_000),
    refreshClaimLimit: integer(env, 'REFRESH_CLAIM_LIMIT', 300, 1, 10_000),
    refreshLeaseMs: integer(env, 'REFRESH_LEASE_SECONDS', 60, 1, 3600) * 1000,
    apiFirstInFlight: integer(env, 'API_FIRST_IN_FLIGHT', 16, 0, 100_000),
    mcpEnabled: boolean(env, 'MCP_ENABLED'),
    carrierCorrectionPollMs: integer(env, 'CARRIER_CORRECTION_POLL_MS', 60_000, 50, 3_600_000),
    carrierTimeoutMs: integer(env, 'CARRIER_TIMEOUT_MS', 15_000, 100, 120_000),
    carriers: Object.fromEntries([...CARRIERS, ...ROUTES].map((carrier) => [carrier.code, carrierSettings(env, carrier.env)])),
    pushes: Object.fromEntries(
      CARRIERS.flatMap((carrier) => (carrier.pushes ? [[carrier.code, pushConfig(env, carrier.pushes.envPrefix, carrier.pushes.versions)]] : [])),
    ),
    simulatorStepMs,
    webhook: {
      scheduleMs: retrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
      allowPrivateTargets: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'),
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 256, 1, 10_000),
      hostConcurrency: integer(env, 'WEBHOOK_HOST_CONCURRENCY', 8, 1, 1000),
      hostConcurrencyMax: integer(env, 'WEBHOOK_HOST_CONCURRENCY_MAX', 128, 1, 1000),
      pollMs: integer(env, 'WEBHOOK_POLL_MS', 1000, 50, 600_000),
    },
    email: emailSettings(env),
    sms: smsSettings(env),
  }
}

/** TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM go together. */
function smsSettings(env: NodeJS.ProcessEnv): Config['sms'] {
  const accountSid = optional(env, 'TWILIO_ACCOUNT_SID')
  if (accountSid === undefined) return undefined
  if (!/^AC[0-9a-fA-F]{32}$/.test(accountSid)) throw new ConfigError('TWILIO_ACCOUNT_SID must be an account sid (AC and 32 hex digits)')
  const authToken = optional(env, 'TWILIO_AUTH_TOKEN')
  if (authToken === undefined) throw new ConfigError('TWILIO_AUTH_TOKEN must be set with TWILIO_ACCOUNT_SID')
  const from = optional(env, 'TWILIO_FROM')
  if (from === undefined || !/^(\+[1-9][0-9]{6,14}|MG[0-9a-fA-F]{32})$/.test(from))
    throw new ConfigError('TWILIO_FROM must be the sending number in E.164 (+15005550006) or a Messaging Service sid (MG…) when TWILIO_ACCOUNT_SID is set')
  const apiUrl = optional(env, 'TWILIO_API_URL') ?? 'https://api.twilio.com'
  if (!/^https?:\/\/[^\s/?#]+\/?$/.test(apiUrl)) throw new ConfigError('TWILIO_API_URL must be an http(s) origin')
  return {
    accountSid,
    authToken,
    from,
    apiUrl,
    timeoutMs: integer(env, 'SMS_TIMEOUT_MS', 10_000, 100, 120_000),
    concurrency: integer(env, 'SMS_CONCURRENCY', 4, 1, 100),
  }
}

/** SMTP_URL and NOTIFY_FROM go together: an address to send from is what the relay's domain verified. */
function emailSettings(env: NodeJS.ProcessEnv): Config['email'] {
  const smtpUrl = optional(env, 'SMTP_URL')
  if (smtpUrl === undefined) return undefined
  if (!/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL')
  const from = optional(env, 'NOTIFY_FROM')
  if (from === undefined || emailProblem(from) !== undefined)
    throw new ConfigError('NOTIFY_FROM must be the email address messages are sent from when SMTP_URL is set')
  return {
    smtpUrl,
    from,
    timeoutMs: integer(env, 'SMTP_TIMEOUT_MS', 15_000, 100, 120_000),
    concurrency: integer(env, 'SMTP_CONCURRENCY', 8, 1, 1000),
  }
}

/** An http(s) URL with no path but "/", query or fragment, written without its trailing slash. */
function publicBaseUrl(raw: string): string {
  let url: URL | undefined
  try {
    url = new URL(raw)
  } catch {
    url = undefined
  }
  // No spaces or backslashes: the value is passed in each connection's startup options (database.ts).
  if (!url || !['http:', 'https:'].includes(url.protocol) || /[\s\\]/.test(raw) || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`PUBLIC_BASE_URL must be an http or https URL without a query, got ${JSON.stringify(raw)}`)
  }
  return url.href.replace(/\/+$/, '')
}

function retrySchedule(raw: string | undefined): number[] {
  try {
    return parseRetrySchedule(raw)
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
}

function boolean(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = optional(env, name)?.toLowerCase()
  if (raw === undefined || raw === 'false' || raw === '0') return false
  if (raw === 'true' || raw === '1') return true
  throw new ConfigError(`${name} must be true or false, got "${raw}"`)
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = optional(env, name)
  if (raw === undefined) return fallback
  if (!(values as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`)
  return raw as T
}

function carrierSettings(env: NodeJS.ProcessEnv, spec: CarrierEnvironment): CarrierSettings {
  const credentials: Record<string, string> = {}
  for (const [field, variable] of Object.entries(spec.credentials)) {
    const value = optional(env, variable)
    if (value !== undefined) credentials[field] = value
  }
  return {
    apiUrl: optional(env, spec.apiUrl.variable) ?? spec.apiUrl.fallback,
    credentials: Object.keys(credentials).length === Object.keys(spec.credentials).length ? credentials : undefined,
    ...budget(env, spec.requestBudget.variable, spec.requestBudget.fallback),
  }
}

function budget(env: NodeJS.ProcessEnv, name: string, fallback: RequestBudget): { requestBudget: RequestBudget; requestsPerSecond: number } {
  const raw = optional(env, name)
  const parsed = raw === undefined ? fallback : parseRequestBudget(raw)
  if (!parsed || requestsPerSecond(parsed) > 1000) {
    throw new ConfigError(`${name} must be requests per second, minute, hour or day ("50", "60/hour", "250/day"; at most 1000 a second), got "${raw}"`)
  }
  return { requestBudget: parsed, requestsPerSecond: requestsPerSecond(parsed) }
}
