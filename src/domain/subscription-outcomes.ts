/** What a subscribe answers: `result` of the single subscribe, and of each batch item. */
export const SUBSCRIBE_RESULTS = ['created', 'updated'] as const
export const BATCH_RESULTS = ['created', 'reused', 'validation_error', 'unsupported_carrier', 'carrier_not_detected'] as const

export type SubscribeResultKind = (typeof SUBSCRIBE_RESULTS)[number]
export type BatchResultKind = (typeof BATCH_RESULTS)[number]
