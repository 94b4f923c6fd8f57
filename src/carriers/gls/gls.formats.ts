import type { TrackingFormat } from '../carrier-plugin'

/**
 * GLS parcel numbers: 11 digits (the unit number), or 12 with a check digit: digits 1-11 times
 * 3,1,3,… from the left, plus one; (10 − sum mod 10) mod 10. The rule comes from GLS's own
 * numbers, not a document, and FedEx Express and DHL's Identcode are twelve digits too: a match
 * is medium. Track IDs (8) and digital notification cards (14) have no known rule: loose.
 */
export function glsCheck(number: string): boolean {
  const sum = [...number.slice(0, 11)].reduce((total, d, i) => total + Number(d) * (i % 2 === 0 ? 3 : 1), 1)
  return (10 - (sum % 10)) % 10 === Number(number[11])
}

export const GLS_FORMATS: readonly TrackingFormat[] = [
  { name: 'GLS parcel number (12 digits)', pattern: /^[0-9]{12}$/, checkDigit: glsCheck, certain: false, example: '604831862623' },
  { name: 'GLS unit number (11 digits)', pattern: /^[0-9]{11}$/, loose: true, example: '21569979615' },
  { name: 'GLS Track ID (8 letters and digits)', pattern: /^[A-Z0-9]{8}$/, loose: true, example: 'ZX61QJIX' },
  { name: 'GLS digital notification card (14 letters and digits)', pattern: /^[A-Z0-9]{14}$/, loose: true, example: 'ZX61QJIXFA653N' },
]
