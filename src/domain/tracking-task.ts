import type { WebhookStatus } from './statuses'

/** The parts of a task's normalised view that carriers fill and the records keep (its documents: task-document.ts). */

export interface Address {
  country: string
  state: string
  city: string
  postalCode: string
  address: string
}

export interface TrackingEvent {
  eventTime: Date
  eventCode: string
  status: string
  statusInfo: string
  description: string
  exceptionDescription: string
  country: string
  state: string
  city: string
  postalCode: string
  address: string
}

/**
 * What the carrier says of a delivery: who signed, where it was left, whether a signature image
 * exists, a link to its proof-of-delivery document. Strings are "" when the carrier does not say.
 */
export interface ProofOfDelivery {
  signedBy: string
  location: string
  signatureAvailable: boolean
  /** Only an https URL the carrier gave; null otherwise. */
  documentUrl: string | null
}

/** A proof of delivery from what a carrier said: null when it said nothing of one. */
export function proofOfDeliveryOf(p: { signedBy: string; location: string; signatureAvailable: boolean; documentUrl: string }): ProofOfDelivery | null {
  let documentUrl: string | null = null
  try {
    documentUrl = p.documentUrl && new URL(p.documentUrl).protocol === 'https:' ? p.documentUrl : null
  } catch {
    documentUrl = null
  }
  if (!p.signedBy && !p.location && !p.signatureAvailable && !documentUrl) return null
  return { signedBy: p.signedBy, location: p.location, signatureAvailable: p.signatureAvailable, documentUrl }
}

/** The newest webhook delivery of a task (latestWebhook). */
export interface WebhookSummary {
  status: WebhookStatus
  attemptCount: number
  /** Null when no retry is planned. */
  nextRetryAt: Date | null
  /** Null before the first attempt. */
  lastAttemptAt: Date | null
  /** 0 when no HTTP answer was received. */
  responseStatusCode: number
  /** "" when none. */
  errorMessage: string
}
