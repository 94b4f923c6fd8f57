import type { TrackingFormat } from '../carrier-plugin'
import { mod10, s10Check } from '../check-digits'

/** Canada Post's PINs (16 digits: over digits 1-15 from the left ×3, ×1, …) and S10 numbers ending CA. */
export const CANADAPOST_FORMATS: readonly TrackingFormat[] = [
  { name: 'Canada Post PIN (16 digits)', pattern: /^[0-9]{16}$/, checkDigit: (n) => mod10(n.slice(0, 15), n.slice(15), 3, 1), example: '1371134583769923' },
  { name: 'Canada Post UPU S10 (…CA)', pattern: /^[A-Z]{2}[0-9]{9}CA$/, checkDigit: s10Check, example: 'RR123456785CA' },
]
