import type { FastifyPluginAsync } from 'fastify'
import type { AuthService } from '../../services/auth.service'
import type { CarrierCatalogService } from '../../services/carrier-catalog.service'
import type { SubscriptionService } from '../../services/subscription.service'
import type { TaskService } from '../../services/task.service'
import type { CarrierChangeService } from '../../services/carrier-change.service'
import type { AccountSettingsService } from '../../services/account-settings.service'
import { accountSettingsRoutes } from './account-settings.routes'
import type { DeliveryLogService } from '../../services/delivery-log.service'
import type { WebhookEndpointService } from '../../services/webhook-endpoint.service'
import type { WebhookHistoryService } from '../../services/webhook-history.service'
import type { TransitService } from '../../services/transit.service'
import type { TrackingPageService } from '../../services/tracking-page.service'
import { trackingPageApiRoutes } from './tracking-page.routes'
import type { NotificationService } from '../../services/notification.service'
import { notificationRoutes } from './notification.routes'
import { analyticsRoutes } from './analytics.routes'
import { carrierRoutes } from './carrier.routes'
import { subscriptionRoutes } from './subscription.routes'
import { csvRoutes } from './csv.routes'
import type { SubscriptionImportService } from '../../services/subscription-import.service'
import { taskRoutes } from './task.routes'
import { webhookEndpointRoutes } from './webhook-endpoint.routes'
import { webhookRoutes } from './webhook.routes'

declare module 'fastify' {
  interface FastifyRequest {
    /** The API user on whose behalf the request is made (set by the bearer-token hook). */
    userId: number
  }
}

/** Everything under /openapi: one bearer-token check in front of all of it. */
export const apiRoutes: FastifyPluginAsync<{
  auth: AuthService
  subscriptions: SubscriptionService
  imports: SubscriptionImportService
  tasks: TaskService
  changes: CarrierChangeService
  accountSettings: AccountSettingsService
  webhooks: WebhookHistoryService
  endpoints: WebhookEndpointService
  deliveryLog: DeliveryLogService
  carriers: CarrierCatalogService
  transit: TransitService
  pages: TrackingPageService
  notifications: NotificationService
}> = async (app, options) => {
  app.decorateRequest('userId', 0)
  // Authenticate before the body is even parsed: a stranger's payload is not worth reading.
  app.addHook('onRequest', async (request) => {
    request.userId = await options.auth.authenticate(request.headers.authorization)
  })
  await app.register(carrierRoutes, { carriers: options.carriers })
  await app.register(subscriptionRoutes, { subscriptions: options.subscriptions })
  await app.register(csvRoutes, { imports: options.imports, tasks: options.tasks })
  await app.register(taskRoutes, { tasks: options.tasks, changes: options.changes, notifications: options.notifications })
  await app.register(notificationRoutes, { notifications: options.notifications })
  await app.register(accountSettingsRoutes, { settings: options.accountSettings })
  await app.register(webhookRoutes, { webhooks: options.webhooks })
  await app.register(webhookEndpointRoutes, { endpoints: options.endpoints, log: options.deliveryLog })
  await app.register(analyticsRoutes, { transit: options.transit })
  await app.register(trackingPageApiRoutes, { pages: options.pages })
}
