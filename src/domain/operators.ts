import { invalid, MUST, type FieldError } from './errors'

/**
 * The console's operators and what each role may do (docs/console.md, "Operators and roles").
 * Every action that changes something names the least role that may take it; the console's
 * routes refuse any other on the server, whatever the page showed.
 */
export const ROLES = ['viewer', 'support', 'admin'] as const
export type Role = (typeof ROLES)[number]

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  viewer: 'reads every page, changes nothing',
  support: 'reads; refreshes and stops tasks, redelivers and replays webhooks',
  admin: 'everything: API users, tokens, secrets, settings, operators',
}

/**
 * Every action the audit trail records, with the least role that may take it. Signing in is open
 * to every role (the password decides); changing one's own password too.
 */
export const ACTIONS = {
  'console.sign_in': 'viewer',
  'operator.change_password': 'viewer',
  'task.refresh': 'support',
  'task.stop': 'support',
  'task.change_carrier': 'support',
  'task.import': 'support',
  'webhook.redeliver': 'support',
  'webhook.replay': 'support',
  'api_user.create': 'admin',
  'api_token.issue': 'admin',
  'api_token.revoke': 'admin',
  'webhook_secret.rotate': 'admin',
  'tracking_page.save': 'admin',
  'notifications.save': 'admin',
  'account_settings.save': 'admin',
  'settings.update': 'admin',
  'operator.create': 'admin',
  'operator.update': 'admin',
  'operator.revoke_sessions': 'admin',
} as const satisfies Record<string, Role>
export type Action = keyof typeof ACTIONS
export const ACTION_NAMES = Object.keys(ACTIONS) as Action[]

/** Whether `role` may take `action`. */
export function may(role: Role, action: Action): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(ACTIONS[action])
}

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value)

export const PASSWORD_MIN = 12
/** Past this, a password is refused before it is hashed: scrypt's cost is not a caller's to choose. */
export const PASSWORD_MAX = 256

/** What is wrong with a new password, if anything. */
export function passwordProblem(password: unknown): FieldError | undefined {
  if (typeof password !== 'string') return { field: 'password', message: MUST.string }
  if ([...password].length < PASSWORD_MIN) return { field: 'password', message: MUST.atLeast(PASSWORD_MIN) }
  if (password.length > PASSWORD_MAX) return { field: 'password', message: MUST.atMost(PASSWORD_MAX) }
  return undefined
}

const EMAIL = /^[^\s@\p{Cc}]{1,64}@[^\s@\p{Cc}]{1,255}$/u

/** An operator's email as kept (trimmed; compared without regard to case), or a validation error. */
export function parseOperator(input: { email?: unknown; role?: unknown; password?: unknown }, needPassword = true): { email: string; role: Role } {
  const problems: FieldError[] = []
  const email = typeof input.email === 'string' ? input.email.trim() : ''
  if (!EMAIL.test(email) || email.length > 254) problems.push({ field: 'email', message: 'must be an email address' })
  if (!isRole(input.role)) problems.push({ field: 'role', message: MUST.oneOf(ROLES) })
  const weak = needPassword ? passwordProblem(input.password) : undefined
  if (weak) problems.push(weak)
  if (problems.length > 0) throw invalid(problems)
  return { email, role: input.role as Role }
}
