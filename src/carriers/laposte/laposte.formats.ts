import type { TrackingFormat } from '../carrier-plugin'
import { mod10, s10Check } from '../check-digits'

/**
 * La Poste's tracking-number formats. Suivi v2 tracks Colissimo, Chronopost and tracked letters
 * alike and accepts any 11 to 15 letters and digits, so a shape it does not document may still be
 * La Poste's: that last format is loose (a candidate, never picked alone).
 */
export const LAPOSTE_FORMATS: readonly TrackingFormat[] = [
  // The check key La Poste's label software appends: over the 10-digit sequence after the product
  // code, from the right ×3, ×1, …; (10 − sum mod 10) mod 10.
  {
    name: 'Colissimo (digit, letter, 11 digits)',
    pattern: /^[0-9][A-Z][0-9]{11}$/,
    checkDigit: (n) => mod10(n.slice(2, 12), n.slice(12), 1, 3),
    example: '6Y11138937441',
  },
  { name: 'La Poste UPU S10 (…FR)', pattern: /^[A-Z]{2}[0-9]{9}FR$/, checkDigit: s10Check, example: 'EW112720413FR' },
  { name: 'anything La Poste Suivi accepts (11-15 letters and digits)', pattern: /^[A-Z0-9]{11,15}$/, loose: true, example: '1K36275770009' },
]
