import type { Config } from '../config/config'
import { ApiUserRepository } from '../db/api-user.repository'
import type { Database } from '../db/database'
import { SettingsRepository } from '../db/settings.repository'
import { TaskRepository } from '../db/task.repository'
import { WebhookDeliveryRepository } from '../db/webhook-delivery.repository'
import type { AppServices } from '../http/app'
import { ApiUserService } from '../services/api-user.service'
import { AuthService } from '../services/auth.service'
import { HealthService, type CarrierModes } from '../services/health.service'
import { SettingsService } from '../services/settings.service'
import { SubscriptionService } from '../services/subscription.service'
import { WebhookHistoryService } from '../services/webhook-history.service'

/** Wires repositories into services: the one place that knows every concrete class. */
export function createServices(db: Database, config: Pick<Config, 'tokenCacheTtlMs'>, carrierModes: CarrierModes = {}): AppServices {
  const users = new ApiUserRepository(db)
  const settings = new SettingsRepository(db)
  return {
    auth: new AuthService(users, config.tokenCacheTtlMs),
    subscriptions: new SubscriptionService(new TaskRepository(db), settings),
    users: new ApiUserService(users),
    settings: new SettingsService(settings),
    health: new HealthService(db, carrierModes),
    webhooks: new WebhookHistoryService(new WebhookDeliveryRepository(db)),
  }
}
