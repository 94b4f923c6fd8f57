import { randomBytes } from 'node:crypto'
import { loadConfig } from '../config/config'
import type { Actor } from '../domain/audit'
import { ROLES } from '../domain/operators'
import { AppError } from '../domain/errors'
import { SETTING_SPECS, SETTINGS, settingRange, type SettingName, type SettingSpec } from '../domain/settings'
import { migrate } from '../db/migrator'
import { describeDatabase } from '../db/open-database'
import { openToolDatabase } from './tool-database'
import { createServices } from './container'

/**
 * `npm run admin -- <command>`: the back office without the HTTP API. Works on PostgreSQL
 * (DATABASE_URL) and on the embedded database, also while the service is running on it.
 * Prints JSON on stdout; exits 1 with a message on stderr when a command fails.
 */

const USAGE = `usage: npm run admin -- <command>
  create-user <name>                 create an API user; prints its token and webhook secret (shown once)
  list-users                         list API users
  issue-token <userId>               issue another token for a user (shown once)
  list-tokens <userId>               list a user's tokens
  revoke-token <userId> <tokenId>    revoke a token
  rotate-secret <userId>             rotate a user's webhook signing secret (the old one signs for 24 h more)
  delete-task <userId> <taskId>      delete a user's task with its events and webhooks
  create-operator <email> <role>     create a console operator (${ROLES.join('|')}); prints a first password (shown once)
  list-operators                     list console operators
  settings                           show the back-office settings
${SETTING_SPECS.map(([name, s]) => `  set ${name} <${settingRange(s)}>`.padEnd(37) + s.description).join('\n')}`

// Known before the database is opened: a mistyped command should not start the embedded server
// (a second or so) only to be refused.
const COMMANDS = [
  'create-user',
  'list-users',
  'issue-token',
  'list-tokens',
  'revoke-token',
  'rotate-secret',
  'delete-task',
  'create-operator',
  'list-operators',
  'settings',
  'set',
] as const
/** The command line's changes are recorded in the audit trail as its own. */
const CLI: Actor = { kind: 'cli' }
type Command = (typeof COMMANDS)[number]
const isCommand = (name: string): name is Command => (COMMANDS as readonly string[]).includes(name)

const toolLog = { info: (message: string) => console.error(`admin: ${message}`), warn: (message: string) => console.error(`admin: ${message}`) }

function id(value: string | undefined, what: string): number {
  if (!value || !/^[1-9][0-9]{0,14}$/.test(value)) throw new AppError('validation_error', `${what} must be a positive integer`)
  return Number(value)
}

async function run(args: string[]): Promise<unknown> {
  const [command, ...rest] = args
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE)
    return undefined
  }
  if (!isCommand(command)) throw new AppError('validation_error', `unknown command "${command}"\n${USAGE}`)
  const config = loadConfig()
  // Said on stderr, so that stdout stays the command's JSON: a service on another DATA_DIR or
  // DATABASE_URL does not see what this writes.
  console.error(`admin: using ${describeDatabase(config)}`)
  const db = await openToolDatabase(config, toolLog)
  try {
    await migrate(db)
    const { users, settings, tasks, operators } = createServices(db, config)
    switch (command) {
      case 'create-user':
        return await users.create(rest.join(' '), CLI)
      case 'list-users':
        return (await users.list()).map((u) => ({ userId: u.id, name: u.name, createdAt: u.created_at.toISOString() }))
      case 'issue-token':
        return await users.issueToken(id(rest[0], 'userId'), CLI)
      case 'list-tokens':
        return (await users.listTokens(id(rest[0], 'userId'))).map((t) => ({
          tokenId: t.id,
          createdAt: t.created_at.toISOString(),
          revokedAt: t.revoked_at?.toISOString() ?? null,
        }))
      case 'revoke-token': {
        const tokenId = id(rest[1], 'tokenId')
        await users.revokeToken(id(rest[0], 'userId'), tokenId, CLI)
        return { tokenId, revoked: true }
      }
      case 'rotate-secret':
        return await users.rotateWebhookSecret(id(rest[0], 'userId'), CLI)
      case 'delete-task':
        return await tasks.delete(id(rest[0], 'userId'), id(rest[1], 'taskId'))
      case 'create-operator': {
        // A first password of 128 random bits, shown once: the operator changes it in the console (Your account).
        const password = randomBytes(16).toString('base64url')
        const operator = await operators.create({ email: rest[0], role: rest[1], password }, CLI)
        return { operatorId: operator.id, email: operator.email, role: operator.role, password }
      }
      case 'list-operators':
        return (await operators.list()).map((o) => ({
          operatorId: o.id,
          email: o.email,
          role: o.role,
          disabledAt: o.disabled_at?.toISOString() ?? null,
          sessions: o.sessions,
        }))
      case 'settings':
        return await settings.get()
      case 'set': {
        const [name, value] = rest
        if (!name || !(name in SETTINGS) || value === undefined) {
          throw new AppError('validation_error', `usage: set <${Object.keys(SETTINGS).join('|')}> <value>`)
        }
        // An integer setting's value as the integer it spells, else as given (the service says what is wrong).
        const spec: SettingSpec = SETTINGS[name as SettingName]
        return await settings.update({ [name]: spec.kind === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value }, CLI)
      }
    }
  } finally {
    await db.close()
  }
}

run(process.argv.slice(2)).then(
  (result) => {
    if (result !== undefined) console.log(JSON.stringify(result, null, 2))
  },
  (error: unknown) => {
    console.error(`admin: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  },
)
