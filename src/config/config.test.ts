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
})
