/**
 * The webhook event types (docs/webhooks.md). A task's callbackUrl receives
 * `tracking.status_changed` only, exactly as the interface describes it; account endpoints choose
 * among all of them. `webhook.test` is the endpoint test call's, not subscribable.
 */
export const EVENT_TYPES = [
  'tracking.status_changed',
  'tracking.milestone_changed',
  'tracking.eta_changed',
  'tracking.events_added',
  'tracking.deleted',
  'tracking.carrier_changed',
] as const

export type EventType = (typeof EVENT_TYPES)[number]

export const TEST_EVENT_TYPE = 'webhook.test'

/** Every type a webhook may carry. */
export const DELIVERY_TYPES = [...EVENT_TYPES, TEST_EVENT_TYPE] as const
export type DeliveryType = (typeof DELIVERY_TYPES)[number]
