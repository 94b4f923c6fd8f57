export const STANDARD_STATUSES = ['pending', 'in_transit', 'exception', 'delivered', 'returned', 'cancelled', 'expired'] as const
export type StandardStatus = (typeof STANDARD_STATUSES)[number]

export const WEBHOOK_STATUSES = ['pending', 'sending', 'success', 'retry_wait', 'failed'] as const
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number]
