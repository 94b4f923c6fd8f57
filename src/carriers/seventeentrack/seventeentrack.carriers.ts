/**
 * The carriers served through 17TRACK (docs/carriers.md, "17TRACK"): each with the service's own
 * stable code, its name and 17TRACK's numeric key (test/fixtures/carriers/17track/carriers.json,
 * 17TRACK's list as of 2024-08). Only carriers no plugin of ours serves: a 17TRACK entry of a
 * carrier we have (UPS Mail Innovations, DHL Paket, Chronopost…) is served by that plugin under its
 * code. A code here is a promise to API users: it never changes meaning.
 */
export interface RoutedCarrier {
  readonly code: string
  readonly name: string
  /** 17TRACK's carrier key, sent with every number (never left to its detection). */
  readonly key: number
}

export const SEVENTEENTRACK_CARRIERS: readonly RoutedCarrier[] = [
  { code: 'ROYALMAIL', name: 'Royal Mail', key: 11031 },
  { code: 'PARCELFORCE', name: 'Parcelforce', key: 11033 },
  { code: 'PUROLATOR', name: 'Purolator', key: 100042 },
  { code: 'CANPAR', name: 'Canpar Express', key: 100146 },
  { code: 'AUSTRALIAPOST', name: 'Australia Post', key: 1151 },
  { code: 'STARTRACK', name: 'StarTrack', key: 100335 },
  { code: 'DPD', name: 'DPD (DE)', key: 100007 },
  { code: 'DPDUK', name: 'DPD (UK)', key: 100010 },
  { code: 'DPDFR', name: 'DPD (FR)', key: 100072 },
  { code: 'DPDPL', name: 'DPD (PL)', key: 100111 },
  { code: 'DPDIE', name: 'DPD (IE)', key: 100142 },
  { code: 'DPDBE', name: 'DPD (BE)', key: 100321 },
  { code: 'POSTNL', name: 'PostNL', key: 14041 },
  { code: 'POSTNLINTL', name: 'PostNL International Mail', key: 14044 },
  { code: 'CHINAPOST', name: 'China Post', key: 3011 },
  { code: 'CHINAEMS', name: 'China EMS', key: 3013 },
  { code: 'JAPANPOST', name: 'Japan Post', key: 10021 },
  { code: 'KOREAPOST', name: 'Korea Post', key: 11051 },
  { code: 'HONGKONGPOST', name: 'Hongkong Post', key: 8011 },
  { code: 'SINGPOST', name: 'Singapore Post', key: 19131 },
  { code: 'INDIAPOST', name: 'India Post', key: 9021 },
  { code: 'POSTEITALIANE', name: 'Poste Italiane', key: 9071 },
  { code: 'CORREOS', name: 'Correos Spain', key: 19181 },
  { code: 'SWISSPOST', name: 'Swiss Post', key: 19251 },
  { code: 'AUSTRIANPOST', name: 'Austrian Post', key: 1161 },
  { code: 'BPOST', name: 'bpost', key: 2061 },
  { code: 'POSTNORDSE', name: 'PostNord Sweden', key: 19241 },
  { code: 'POSTNORDDK', name: 'PostNord Danmark', key: 4011 },
  { code: 'POSTI', name: 'Posti', key: 6041 },
  { code: 'ANPOST', name: 'An Post', key: 9051 },
  { code: 'NZPOST', name: 'New Zealand Post', key: 14061 },
  { code: 'CORREIOS', name: 'Correios Brazil', key: 2151 },
  { code: 'EVRI', name: 'Evri', key: 100331 },
  { code: 'HERMES', name: 'Hermes', key: 100018 },
  { code: 'HERMESDE', name: 'Hermes (DE)', key: 100031 },
  { code: 'YODEL', name: 'Yodel', key: 100017 },
  { code: 'INPOST', name: 'InPost (PL)', key: 100043 },
  { code: 'MONDIALRELAY', name: 'Mondial Relay', key: 100304 },
  { code: 'TNT', name: 'TNT', key: 100004 },
  { code: 'ARAMEX', name: 'Aramex', key: 100006 },
  { code: 'ONTRAC', name: 'OnTrac', key: 100049 },
  { code: 'LASERSHIP', name: 'LaserShip', key: 100052 },
  { code: 'AMAZONSHIPPING', name: 'Amazon Shipping', key: 100308 },
  { code: 'SFEXPRESS', name: 'SF Express', key: 100012 },
  { code: 'CAINIAO', name: 'Cainiao', key: 190271 },
  { code: 'YUNEXPRESS', name: 'YunExpress', key: 190008 },
  { code: 'FOURPX', name: '4PX', key: 190094 },
  { code: 'SENDLE', name: 'Sendle', key: 100123 },
  { code: 'BRING', name: 'Bring', key: 100423 },
  { code: 'ESTAFETA', name: 'Estafeta', key: 100139 },
]

const BY_CODE = new Map(SEVENTEENTRACK_CARRIERS.map((c) => [c.code, c]))
const BY_KEY = new Map(SEVENTEENTRACK_CARRIERS.map((c) => [c.key, c]))

export function routedCarrierOf(code: string): RoutedCarrier | undefined {
  return BY_CODE.get(code)
}

export function routedCarrierByKey(key: number): RoutedCarrier | undefined {
  return BY_KEY.get(key)
}

/** 17TRACK's public page for a number: the routed carriers' tracking page link. */
export function seventeenTrackPageUrl(trackingNumber: string): string {
  return `https://t.17track.net/en#nums=${encodeURIComponent(trackingNumber)}`
}
