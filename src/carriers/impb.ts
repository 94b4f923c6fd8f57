import { mod10 } from './check-digits'

/**
 * USPS's Intelligent Mail package barcode (IMpb): the number USPS delivers under, whoever issued
 * the label. FedEx (Ground Economy), UPS (Mail Innovations, SurePost) and DHL eCommerce issue them
 * too, and no check digit tells the issuer apart: those carriers list the same pattern without a
 * check digit (a medium candidate), USPS with one.
 */

/** 22 digits 91-95, 26 digits 92-95, and either routed: 420 + ZIP (5 or 9 digits) before it. */
export const IMPB_PATTERN = /^(?:420(?:[0-9]{5}|[0-9]{9}))?(?:9[1-5][0-9]{20}|9[2-5][0-9]{24})$/

/** The IMpb check: the digits but the last, from the right times 3, 1, 3, …; (10 − sum mod 10) mod 10. */
export function impbCheck(digits: string): boolean {
  const body = digits.slice(0, -1)
  return body.length % 2 === 1 ? mod10(body, digits.slice(-1), 3, 1) : mod10(body, digits.slice(-1), 1, 3)
}

/** The IMpb a routed number carries (420 + ZIP or ZIP+4 first), each reading that fits; the number itself otherwise. */
export function impbReadings(number: string): string[] {
  if (!number.startsWith('420')) return [number]
  return [number.slice(8), number.slice(12)].filter((part) => /^(9[1-5][0-9]{20}|9[2-5][0-9]{24})$/.test(part))
}
