import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { storyWalk } from '../../../test/support/story-walk'
import { USPS_NO_TRACKING_SCOPE } from './usps.client'
import { USPS } from './usps.plugin'

// What is USPS's own beyond the stories every carrier walks (carrier-stories.test.ts): an app the
// Tracking API was never granted to. The simulator answers a client id "notrack-app" with a token
// that lacks the `tracking` scope.
const walker = storyWalk()
beforeAll(() => walker.start())
afterAll(() => walker.stop())

describe('the USPS client', () => {
  it('says what to do when the app lacks the tracking scope, without asking for tracking at all', async () => {
    const noScope = walker.adapter(USPS, { clientId: 'notrack-app', clientSecret: 'secret' })
    const tracks = walker.trackRequests(USPS)
    const error = await noScope.fetch(['9400109104250532908587']).catch((e: unknown) => e)
    expect(error).toMatchObject({ failure: 'unauthorized', message: USPS_NO_TRACKING_SCOPE })
    expect(walker.trackRequests(USPS)).toBe(tracks)
  })
})
