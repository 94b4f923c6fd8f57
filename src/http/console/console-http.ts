import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../domain/errors'
import type { ApiUserService } from '../../services/api-user.service'
import type { ConsoleSessionService } from '../../services/console-session.service'
import type { ConsoleService } from '../../services/console.service'
import type { SettingsService } from '../../services/settings.service'
import type { SubscriptionImportService } from '../../services/subscription-import.service'
import type { TaskService } from '../../services/task.service'
import type { WebhookEndpointService } from '../../services/webhook-endpoint.service'
import type { TransitService } from '../../services/transit.service'
import type { TrackingPageService } from '../../services/tracking-page.service'
import type { NotificationService } from '../../services/notification.service'
import type { Html } from '../../domain/html'
import type { AuditTrail } from '../../services/audit-trail'
import type { OperatorService } from '../../services/operator.service'

/** What the console's routes and pages share: the services they call, and how a page is answered. */

export interface ConsoleOptions {
  adminToken: string
  sessions: ConsoleSessionService
  console: ConsoleService
  users: ApiUserService
  settings: SettingsService
  tasks: TaskService
  imports: SubscriptionImportService
  endpoints: WebhookEndpointService
  transit: TransitService
  pages: TrackingPageService
  notifications: NotificationService
  operators: OperatorService
  audit: AuditTrail
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
}

export function sendPage(reply: FastifyReply, body: Html, status = 200): FastifyReply {
  return reply.code(status).headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(body.text)
}

/**
 * An email's HTML as the console's preview frames it: its own inline styles and https images, no
 * script, framed by the console's pages only.
 */
export function sendFramedEmail(reply: FastifyReply, body: string): FastifyReply {
  return reply
    .code(200)
    .headers({
      ...SECURITY_HEADERS,
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'",
      'x-frame-options': 'SAMEORIGIN',
    })
    .type('text/html; charset=utf-8')
    .send(body)
}

/** Form bodies: application/x-www-form-urlencoded, as the console's forms send them. */
export function formOf(request: FastifyRequest): Record<string, string> {
  return (request.body as Record<string, string> | undefined) ?? {}
}

/** The reason of a refusal for a bad value, which a form answers with the form again; any other error goes on. */
export function refusalReason(error: unknown): string {
  if (error instanceof AppError && error.code === 'validation_error') return error.message
  throw error
}
