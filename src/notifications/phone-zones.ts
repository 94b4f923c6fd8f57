import parsePhoneNumber from 'libphonenumber-js/max'
import { timezones } from 'libphonenumber-geo-carrier'

/**
 * The time zones a phone number (E.164) may be in, from Google's libphonenumber metadata by its
 * longest known prefix (one zone for most numbers; several for a number that could be anywhere in
 * its country or its numbering plan); [] when nothing is known of it.
 */
export async function phoneZones(phone: string): Promise<string[]> {
  const parsed = parsePhoneNumber(phone)
  if (!parsed) return []
  const zones = await timezones(parsed)
  return (zones ?? []).filter((zone) => zone !== 'Etc/Unknown')
}
