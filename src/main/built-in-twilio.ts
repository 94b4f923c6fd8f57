import type { SmsSettings } from '../config/config'
import type { SecretsRepository } from '../db/secrets.repository'

/**
 * The credentials of the built-in fake Twilio (src/simulator/fake-twilio.ts), which takes the
 * customer's texts when no TWILIO_ACCOUNT_SID is set outside production: made from a key every
 * process of the deployment shares, so that an API process verifies the callbacks of the fake a
 * worker process started.
 */
export async function builtInTwilio(secrets: SecretsRepository): Promise<Pick<SmsSettings, 'accountSid' | 'authToken'>> {
  const key = await secrets.get('built_in_twilio')
  return { accountSid: `AC${key.subarray(0, 16).toString('hex')}`, authToken: key.subarray(16).toString('hex') }
}

/** The sending number of the built-in fake Twilio: Twilio's own test number that can send. */
export const BUILT_IN_TWILIO_FROM = '+15005550006'
