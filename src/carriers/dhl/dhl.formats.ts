import type { TrackingFormat } from '../carrier-plugin'
import { mod10, s10Check } from '../check-digits'
import { IMPB_PATTERN } from '../impb'

/**
 * DHL's tracking-number formats (detection), each with the DHL service it names where it names
 * one: the client sends it along, so that DHL does not answer another division's shipment.
 */
export const DHL_FORMATS: readonly (TrackingFormat & { service?: string })[] = [
  // The first nine digits read as one number, mod 7: one random number in seven passes.
  {
    name: 'DHL Express waybill (10 digits)',
    pattern: /^[0-9]{10}$/,
    checkDigit: (n) => Number(n.slice(0, 9)) % 7 === Number(n[9]),
    example: '9750874965',
    service: 'express',
  },
  { name: 'DHL Express piece ID (JD + 18-19 digits)', pattern: /^JD[0-9]{18,19}$/, example: 'JD014600008665770753', service: 'express' },
  { name: 'DHL piece code (JJD + 10-20 digits)', pattern: /^JJD[0-9]{10,20}$/, example: 'JJD0099999999', service: 'express' },
  {
    name: 'DHL eCommerce (GM, LX, RX, … + 10-39)',
    pattern: /^(GM|LX|RX|UV|CN|SG|TH|IN|HK|MY)(?=[0-9A-Z]*[0-9])[0-9A-Z]{10,39}$/,
    example: 'GM2951173225174494',
    service: 'ecommerce',
  },
  // GS1 SSCC: mod 10 over the 17 digits after the application identifier 00.
  {
    name: 'DHL Paket (SSCC 00340434…)',
    pattern: /^00340434[0-9]{12}$/,
    checkDigit: (n) => mod10(n.slice(2, 19), n.slice(19), 3, 1),
    example: '00340434292135100124',
    service: 'parcel-de',
  },
  // Deutsche Post's Identcode rule, which DHL does not document for tracking; it collides with FedEx's 12 digits.
  {
    name: 'DHL Paket Identcode (12 digits)',
    pattern: /^[0-9]{12}$/,
    checkDigit: (n) => mod10(n.slice(0, 11), n.slice(11), 4, 9),
    certain: false,
    example: '470800204932',
  },
  { name: 'Deutsche Post UPU S10 (…DE)', pattern: /^[A-Z]{2}[0-9]{9}DE$/, checkDigit: s10Check, example: 'RR123456785DE', service: 'parcel-de' },
  // DHL eCommerce US labels are IMpb numbers that USPS delivers: the issuer cannot be told.
  { name: 'DHL eCommerce US (IMpb, delivered by USPS)', pattern: IMPB_PATTERN, example: '9361289673090019555035' },
]

/** The service a number's format names, if one does. */
export function serviceOf(trackingNumber: string): string | undefined {
  const number = trackingNumber.trim().toUpperCase()
  return DHL_FORMATS.find((f) => f.service && f.pattern.test(number))?.service
}
