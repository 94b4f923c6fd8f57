import type { CarrierCandidate, Confidence } from '../domain/carriers'
import type { CarrierPlugin } from './carrier-plugin'

/**
 * Which carriers a tracking number may belong to. `high`: a format's pattern and check digit
 * hold; `medium`: the pattern holds and the format has no check digit; `low`: the pattern holds
 * but its check digit does not (a typo, or another carrier's number), or the format is loose
 * (anything the carrier's API accepts: La Poste's 11 to 15 characters). A check digit proves
 * little alone (one random 12-digit string in ten passes FedEx's), so every candidate is
 * returned, best first, and a carrier is picked only when exactly one is certain.
 */

const RANK: Record<Confidence, number> = { high: 0, medium: 1, low: 2 }

export function detectCarriers(trackingNumber: string, carriers: readonly CarrierPlugin[], isAvailable: (code: string) => boolean): CarrierCandidate[] {
  const number = trackingNumber.trim().toUpperCase()
  const candidates: CarrierCandidate[] = []
  for (const carrier of carriers) {
    for (const format of carrier.formats) {
      if (!format.pattern.test(number)) continue
      const confidence: Confidence = format.loose
        ? 'low'
        : !format.checkDigit
          ? 'medium'
          : !format.checkDigit(number)
            ? 'low'
            : format.certain === false
              ? 'medium'
              : 'high'
      candidates.push({ carrierCode: carrier.code, format: format.name, confidence, available: isAvailable(carrier.code) })
    }
  }
  // Stable: equal confidences keep the registry's order.
  return candidates.sort((a, b) => RANK[a.confidence] - RANK[b.confidence] || Number(b.available) - Number(a.available))
}

/** The carrier AUTO picks: the one available candidate at `high`, when there is exactly one. */
export function autoPick(candidates: readonly CarrierCandidate[]): string | undefined {
  const certain = candidates.filter((c) => c.available && c.confidence === 'high')
  return certain.length === 1 ? certain[0]!.carrierCode : undefined
}
