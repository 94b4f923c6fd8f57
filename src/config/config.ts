/**
 * The service's configuration, read once from the environment (decisions §8).
 * Every knob has a default that makes `npm start` work on a fresh clone.
 */
export interface Config {
  port: number
  host: string
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const adminToken = optional(env, 'ADMIN_TOKEN')
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters long')
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: optional(env, 'HOST') ?? '127.0.0.1',
    databaseUrl: optional(env, 'DATABASE_URL'),
    dataDir: optional(env, 'DATA_DIR') ?? './data',
    adminToken,
    logLevel: optional(env, 'LOG_LEVEL') ?? 'info',
    production: env.NODE_ENV === 'production',
    tokenCacheTtlMs: integer(env, 'TOKEN_CACHE_TTL_MS', 2000, 0, 60_000),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
  }
}
