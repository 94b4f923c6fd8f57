import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

/**
 * The service's Prometheus metrics outside the HTTP layer, on the process's one registry.
 * Services take this as a plain dependency; tests give them their own registry.
 */
export class ServiceMetrics {
  readonly carrierFetches: Counter<'carrier' | 'outcome'>
  readonly carrierFetchSeconds: Histogram<'carrier'>
  readonly trackingNumbersFetched: Counter<'carrier' | 'result'>
  readonly notificationsCreated: Counter<'carrier'>
  readonly webhookAttempts: Counter<'outcome'>
  readonly notificationAttempts: Counter<'channel' | 'outcome'>
  readonly webhookAttemptSeconds: Histogram
  readonly webhookHostLimit: Gauge<'host'>
  readonly carrierCircuitOpen: Gauge<'carrier'>
  readonly refreshRoundsYielded: Counter<'carrier'>
  readonly inboundPushes: Counter<'source' | 'outcome'>
  readonly pushSubscriptionRequests: Counter<'carrier' | 'outcome'>

  constructor(
    readonly registry: Registry,
    probes: { refreshLagSeconds?: () => Promise<number>; webhookQueueDepth?: () => Promise<Record<string, number>> } = {},
  ) {
    const registers = [registry]
    this.carrierFetches = new Counter({
      name: 'carrier_fetches_total',
      help: 'Carrier tracking requests by outcome',
      labelNames: ['carrier', 'outcome'],
      registers,
    })
    this.carrierFetchSeconds = new Histogram({
      name: 'carrier_fetch_duration_seconds',
      help: 'Carrier tracking request latency',
      labelNames: ['carrier'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    })
    this.trackingNumbersFetched = new Counter({
      name: 'tracking_numbers_fetched_total',
      help: 'Tracking numbers fetched, by result (found, not_found, missing, failed)',
      labelNames: ['carrier', 'result'],
      registers,
    })
    this.inboundPushes = new Counter({
      name: 'inbound_pushes_total',
      help: 'Pushes received at /inbound/{source}, by what they did: applied, unknown_number (no task has it), duplicate, refused (bad signature), malformed, ignored',
      labelNames: ['source', 'outcome'],
      registers,
    })
    this.pushSubscriptionRequests = new Counter({
      name: 'push_subscription_requests_total',
      help: 'Subscription requests to carriers that push (UPS Track Alert, up to 100 numbers each), by outcome: success, or the failure (server_error, unauthorized, …)',
      labelNames: ['carrier', 'outcome'],
      registers,
    })
    this.notificationsCreated = new Counter({
      name: 'webhook_notifications_created_total',
      help: 'Status changes recorded in the webhook outbox',
      labelNames: ['carrier'],
      registers,
    })
    this.webhookAttempts = new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (success, retry, failed)',
      labelNames: ['outcome'],
      registers,
    })
    this.notificationAttempts = new Counter({
      name: 'notification_attempts_total',
      help: "Attempts to send the customer's messages, by channel (email) and outcome (success, retry, failed)",
      labelNames: ['channel', 'outcome'],
      registers,
    })
    this.webhookAttemptSeconds = new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Webhook delivery attempt latency',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
      registers,
    })
    this.carrierCircuitOpen = new Gauge({
      name: 'carrier_circuit_open',
      help: "1 while a carrier's circuit breaker is open in this process: its requests keep failing, none of its tasks is claimed",
      labelNames: ['carrier'],
      registers,
    })
    this.refreshRoundsYielded = new Counter({
      name: 'refresh_rounds_yielded_total',
      help: 'Refresh rounds that claimed one request of their carrier because the API of the same process stayed saturated (ROLE=all, API_FIRST_IN_FLIGHT)',
      labelNames: ['carrier'],
      registers,
    })
    this.webhookHostLimit = new Gauge({
      name: 'webhook_host_concurrency_limit',
      help: 'Webhook attempts a receiving host may get at once in this process (adapts to its answers)',
      labelNames: ['host'],
      registers,
    })
    const { refreshLagSeconds, webhookQueueDepth } = probes
    if (webhookQueueDepth) {
      new Gauge({
        name: 'webhook_queue_depth',
        help: 'Webhook deliveries waiting (pending, retry_wait) or in flight (sending)',
        labelNames: ['status'],
        registers,
        async collect() {
          const depth = await webhookQueueDepth().catch(() => ({}))
          for (const [status, n] of Object.entries(depth)) this.set({ status }, n)
        },
      })
    }
    if (refreshLagSeconds) {
      new Gauge({
        name: 'refresh_lag_seconds',
        help: 'How long the most overdue active task has been waiting for its refresh',
        registers,
        async collect() {
          this.set(await refreshLagSeconds().catch(() => 0))
        },
      })
    }
  }
}

export function createRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  return registry
}
