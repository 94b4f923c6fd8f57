import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from './config'

describe('loadConfig', () => {
  it('polls carriers on the simulator at the simulator’s pace unless POLL_INTERVAL_SECONDS is set', () => {
    expect(loadConfig({})).toMatchObject({ pollIntervalMs: 7_200_000, simulatorStepMs: 60_000, simulatorPollIntervalMs: 60_000 })
    expect(loadConfig({ SIMULATOR_STEP_SECONDS: '5' })).toMatchObject({ simulatorPollIntervalMs: 5_000 })
    expect(loadConfig({ POLL_INTERVAL_SECONDS: '600' })).toMatchObject({ pollIntervalMs: 600_000, simulatorPollIntervalMs: 600_000 })
    // Stories at their last stage at once: nothing to follow, the usual cadence.
    expect(loadConfig({ SIMULATOR_STEP_SECONDS: '0' })).toMatchObject({ simulatorPollIntervalMs: 7_200_000 })
  })

  it('refuses a malformed value, naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError)
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow('PORT must be an integer, got "eighty"')
    expect(() => loadConfig({ ADMIN_TOKEN: 'short' })).toThrow('ADMIN_TOKEN must be at least 16 characters long')
  })

  it('takes Twilio as a whole: the account, its token and the sending number', () => {
    const sid = `AC${'a'.repeat(32)}`
    expect(loadConfig({}).sms).toBeUndefined()
    expect(loadConfig({ TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: 'token', TWILIO_FROM: '+15005550006' }).sms).toEqual({
      accountSid: sid,
      authToken: 'token',
      from: '+15005550006',
      apiUrl: 'https://api.twilio.com',
      timeoutMs: 10_000,
      concurrency: 4,
    })
    expect(() => loadConfig({ TWILIO_ACCOUNT_SID: sid, TWILIO_FROM: '+15005550006' })).toThrow('TWILIO_AUTH_TOKEN must be set')
    expect(() => loadConfig({ TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: 'token', TWILIO_FROM: '5550006' })).toThrow('TWILIO_FROM must be')
    expect(() => loadConfig({ TWILIO_ACCOUNT_SID: 'nope', TWILIO_AUTH_TOKEN: 'token', TWILIO_FROM: '+15005550006' })).toThrow('TWILIO_ACCOUNT_SID must be')
  })
})
