/**
 * What the rules need to know of carriers, without knowing any: the carriers themselves live in
 * the registry (src/carriers/registry.ts), and the services pass its codes in.
 */

/** `carrierCode: "AUTO"` asks the service to detect the carrier from the tracking number. */
export const AUTO_CARRIER = 'AUTO'

/** Codes are compared after trimming and upper-casing. */
export function normalizeCarrierCode(raw: string): string {
  return raw.trim().toUpperCase()
}

export type Confidence = 'high' | 'medium' | 'low'

/** A carrier a tracking number may belong to (src/carriers/detection.ts). */
export interface CarrierCandidate {
  carrierCode: string
  format: string
  confidence: Confidence
  available: boolean
}

/** A carrier the service cannot take, or could not pick, with what the caller should know. */
export interface CarrierRefusal {
  error: 'unsupported_carrier' | 'carrier_not_detected'
  /** Completes "carrierCode …". */
  message: string
  /** For carrier_not_detected: what detection found. */
  candidates?: CarrierCandidate[]
}

/** The carrier a subscription gets: the code itself, or the one detection picked for AUTO. */
export type CarrierChoice = { ok: true; carrierCode: string } | ({ ok: false } & CarrierRefusal)

/** Given a normalised code and a valid tracking number, the carrier to use (the service knows how). */
export type CarrierResolver = (carrierCode: string, trackingNumber: string) => CarrierChoice

/** The message of an unknown code, the same on every endpoint. */
export function unsupportedCarrierMessage(supported: readonly string[]): string {
  return `is not a supported carrier (supported: ${supported.join(', ')})`
}
