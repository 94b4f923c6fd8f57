/** Carriers the service tracks; codes are compared after trimming and upper-casing. */
export const SUPPORTED_CARRIERS = ['FEDEX', 'UPARCEL'] as const
export type CarrierCode = (typeof SUPPORTED_CARRIERS)[number]

export function normalizeCarrierCode(raw: string): string {
  return raw.trim().toUpperCase()
}

export function isSupportedCarrier(code: string): code is CarrierCode {
  return (SUPPORTED_CARRIERS as readonly string[]).includes(code)
}
