import { autoPick, detectCarriers } from '../carriers/detection'
import { CARRIERS, carrierOf } from '../carriers/registry'
import { AUTO_CARRIER, unsupportedCarrierMessage, type CarrierCandidate, type CarrierChoice } from '../domain/carriers'

/** live: its credentials; simulator: the built-in simulator; unavailable: neither (production without credentials). */
export type CarrierMode = 'live' | 'simulator' | 'unavailable'

export interface CarrierInfo {
  carrierCode: string
  name: string
  available: boolean
  numbersPerRequest: number
  formats: { name: string; example: string }[]
}

/**
 * The carriers as API users see them: the registry, with which of them this service can reach.
 * It also decides a subscription's carrier: a known, available code, or the one detection
 * certainly picks for AUTO.
 */
export class CarrierCatalogService {
  constructor(private readonly modes: Readonly<Record<string, CarrierMode>>) {}

  /** How a carrier runs here; a code the registry does not know is unavailable. */
  mode(code: string): CarrierMode {
    return this.modes[code] ?? 'unavailable'
  }

  isAvailable = (code: string): boolean => this.mode(code) !== 'unavailable'

  list(): CarrierInfo[] {
    return CARRIERS.map((c) => ({
      carrierCode: c.code,
      name: c.name,
      available: this.isAvailable(c.code),
      numbersPerRequest: c.numbersPerRequest,
      formats: c.formats.map((f) => ({ name: f.name, example: f.example })),
    }))
  }

  detect(trackingNumber: string): CarrierCandidate[] {
    return detectCarriers(trackingNumber, CARRIERS, this.isAvailable)
  }

  resolve = (carrierCode: string, trackingNumber: string): CarrierChoice => {
    const available = CARRIERS.map((c) => c.code).filter(this.isAvailable)
    if (carrierCode === AUTO_CARRIER) {
      const candidates = this.detect(trackingNumber)
      const picked = autoPick(candidates)
      if (picked) return { ok: true, carrierCode: picked }
      const why =
        candidates.length === 0
          ? 'no carrier format matches the tracking number'
          : 'no single available carrier matches the tracking number with its check digit'
      return { ok: false, error: 'carrier_not_detected', message: `AUTO could not pick a carrier: ${why}; send the carrierCode`, candidates }
    }
    const carrier = carrierOf(carrierCode)
    if (!carrier) return { ok: false, error: 'unsupported_carrier', message: unsupportedCarrierMessage(available) }
    if (!this.isAvailable(carrierCode)) {
      return {
        ok: false,
        error: 'unsupported_carrier',
        message: `is not available on this service: ${carrier.name} has no credentials configured (available: ${available.join(', ')})`,
      }
    }
    return { ok: true, carrierCode }
  }
}
