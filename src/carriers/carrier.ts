import type { CarrierSnapshot } from '../domain/tracking-update'

/**
 * What a carrier adapter offers the refresh service: fetch up to `maxBatchSize` numbers in one
 * go. A whole-request failure (timeout, 5xx, 429, garbage, bad credentials) throws CarrierError;
 * per-number outcomes (found, not found) come back in the map, keyed by tracking number.
 */
export interface CarrierAdapter {
  readonly maxBatchSize: number
  fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>>
  close(): Promise<void>
}

/** For carriers that take one number a request: each number asked in turn, the lookups keyed by number. */
export async function fetchOneByOne(
  trackingNumbers: readonly string[],
  fetchOne: (trackingNumber: string) => Promise<CarrierLookup | undefined>,
): Promise<Map<string, CarrierLookup>> {
  const lookups = new Map<string, CarrierLookup>()
  for (const number of trackingNumbers) {
    const lookup = await fetchOne(number)
    if (lookup) lookups.set(number, lookup)
  }
  return lookups
}

export type CarrierLookup = { found: true; snapshot: CarrierSnapshot } | { found: false; reason: string }

export type CarrierFailure = 'timeout' | 'rate_limited' | 'server_error' | 'bad_response' | 'unauthorized' | 'network'

export class CarrierError extends Error {
  constructor(
    readonly failure: CarrierFailure,
    message: string,
    /** From Retry-After on a 429 or 503, when the carrier said how long to wait. */
    readonly retryAfterMs?: number,
  ) {
    super(message)
    this.name = 'CarrierError'
  }
}
