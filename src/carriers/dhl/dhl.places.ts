/**
 * DHL writes most event times without an offset, meaning the time where the event happened (spec
 * 1.5.8: "time zone should be interpreted as in the place of the respective shipment event"). The
 * place is a country code, or only a locality ("KARACHI - KARACHI - PAKISTAN", "CINCINNATI HUB, OH
 * - USA", "Deutschland"): its time zone is read from the country named last, or for the United
 * States and Canada from the state or province before it. A place this cannot tell is read as UTC
 * (docs/carriers.md says so), and in every case the event's utcOffset stays null: the offset was
 * worked out, not given.
 */

/** Countries with one time zone, by ISO code and by the names DHL writes (English and German). */
const COUNTRIES: Record<string, string> = {
  DE: 'Europe/Berlin',
  GERMANY: 'Europe/Berlin',
  DEUTSCHLAND: 'Europe/Berlin',
  AT: 'Europe/Vienna',
  AUSTRIA: 'Europe/Vienna',
  CH: 'Europe/Zurich',
  SWITZERLAND: 'Europe/Zurich',
  NL: 'Europe/Amsterdam',
  NETHERLANDS: 'Europe/Amsterdam',
  BE: 'Europe/Brussels',
  BELGIUM: 'Europe/Brussels',
  FR: 'Europe/Paris',
  FRANCE: 'Europe/Paris',
  ES: 'Europe/Madrid',
  SPAIN: 'Europe/Madrid',
  IT: 'Europe/Rome',
  ITALY: 'Europe/Rome',
  PL: 'Europe/Warsaw',
  POLAND: 'Europe/Warsaw',
  CZ: 'Europe/Prague',
  DK: 'Europe/Copenhagen',
  SE: 'Europe/Stockholm',
  NO: 'Europe/Oslo',
  FI: 'Europe/Helsinki',
  IE: 'Europe/Dublin',
  GB: 'Europe/London',
  UK: 'Europe/London',
  'UNITED KINGDOM': 'Europe/London',
  PT: 'Europe/Lisbon',
  GR: 'Europe/Athens',
  HU: 'Europe/Budapest',
  TR: 'Europe/Istanbul',
  AE: 'Asia/Dubai',
  'UNITED ARAB EMIRATES': 'Asia/Dubai',
  PK: 'Asia/Karachi',
  PAKISTAN: 'Asia/Karachi',
  IN: 'Asia/Kolkata',
  INDIA: 'Asia/Kolkata',
  CN: 'Asia/Shanghai',
  CHINA: 'Asia/Shanghai',
  HK: 'Asia/Hong_Kong',
  'HONG KONG': 'Asia/Hong_Kong',
  SG: 'Asia/Singapore',
  SINGAPORE: 'Asia/Singapore',
  JP: 'Asia/Tokyo',
  JAPAN: 'Asia/Tokyo',
  KR: 'Asia/Seoul',
  TH: 'Asia/Bangkok',
  MY: 'Asia/Kuala_Lumpur',
  MALAYSIA: 'Asia/Kuala_Lumpur',
  ZA: 'Africa/Johannesburg',
}

/** The United States and Canada by state or province (their main zone). */
const REGIONS: Record<string, Record<string, string>> = {
  US: {
    ...Object.fromEntries(
      ['CT', 'DC', 'DE', 'FL', 'GA', 'IN', 'KY', 'MA', 'MD', 'ME', 'MI', 'NC', 'NH', 'NJ', 'NY', 'OH', 'PA', 'RI', 'SC', 'VA', 'VT', 'WV'].map((s) => [
        s,
        'America/New_York',
      ]),
    ),
    ...Object.fromEntries(['AL', 'AR', 'IA', 'IL', 'KS', 'LA', 'MN', 'MO', 'MS', 'ND', 'NE', 'OK', 'SD', 'TN', 'TX', 'WI'].map((s) => [s, 'America/Chicago'])),
    ...Object.fromEntries(['CO', 'ID', 'MT', 'NM', 'UT', 'WY'].map((s) => [s, 'America/Denver'])),
    AZ: 'America/Phoenix',
    ...Object.fromEntries(['CA', 'NV', 'OR', 'WA'].map((s) => [s, 'America/Los_Angeles'])),
    AK: 'America/Anchorage',
    HI: 'Pacific/Honolulu',
  },
  CA: {
    AB: 'America/Edmonton',
    BC: 'America/Vancouver',
    MB: 'America/Winnipeg',
    NB: 'America/Moncton',
    NL: 'America/St_Johns',
    NS: 'America/Halifax',
    ON: 'America/Toronto',
    QC: 'America/Toronto',
    SK: 'America/Regina',
  },
}
const COUNTRY_OF_NAME: Record<string, string> = { USA: 'US', 'UNITED STATES': 'US', US: 'US', CANADA: 'CA', CA: 'CA' }

/** The time zone of a DHL place, or undefined when it cannot be told. */
export function zoneOf(address: { countryCode?: string; addressLocality?: string }): string | undefined {
  const locality = (address.addressLocality ?? '').toUpperCase()
  const parts = locality.split(/\s+-\s+/).map((p) => p.trim())
  const country = (address.countryCode ?? '').toUpperCase() || parts.at(-1) || ''
  const code = COUNTRY_OF_NAME[country] ?? country
  const regions = REGIONS[code]
  if (regions) {
    // "CINCINNATI HUB, OH - USA", "SOUTHERN ALBERTA, AB - CANADA": the region after a comma.
    const region = /,\s*([A-Z]{2})\s*(?:-|$)/.exec(locality)?.[1]
    return region ? regions[region] : undefined
  }
  return COUNTRIES[code]
}
