import { describe, expect, it } from 'vitest'
import { quietUntil } from './quiet-hours'

describe('quiet hours at the destination', () => {
  it('lets a text go by day and holds it at night until 08:00 there', () => {
    // 12:00 UTC is 13:00 in Berlin (winter): day.
    expect(quietUntil(['Europe/Berlin'], new Date('2026-11-29T12:00:00Z'))).toBeUndefined()
    // 22:30 in Berlin: held until 08:00 Berlin, 07:00 UTC.
    expect(quietUntil(['Europe/Berlin'], new Date('2026-11-29T21:30:00Z'))).toEqual(new Date('2026-11-30T07:00:00Z'))
    // 21:59 is still day; 22:00 is not.
    expect(quietUntil(['Europe/Berlin'], new Date('2026-11-29T20:59:00Z'))).toBeUndefined()
    expect(quietUntil(['Europe/Berlin'], new Date('2026-11-29T21:00:00Z'))).toEqual(new Date('2026-11-30T07:00:00Z'))
    // Summer time: 08:00 in Berlin is 06:00 UTC.
    expect(quietUntil(['Europe/Berlin'], new Date('2026-07-01T03:10:00Z'))).toEqual(new Date('2026-07-01T06:00:00Z'))
  })

  it("reads the destination's clock, not the server's", () => {
    // 15:00 UTC: day in Berlin, 05:00 in Honolulu.
    const at = new Date('2026-11-29T15:00:00Z')
    expect(quietUntil(['Europe/Berlin'], at)).toBeUndefined()
    expect(quietUntil(['Pacific/Honolulu'], at)).toEqual(new Date('2026-11-29T18:00:00Z'))
    // Half-hour and quarter-hour zones: 08:00 in Kolkata is 02:30 UTC, in Kathmandu 02:15 UTC.
    expect(quietUntil(['Asia/Kolkata'], new Date('2026-11-29T00:00:00Z'))).toEqual(new Date('2026-11-29T02:30:00Z'))
    expect(quietUntil(['Asia/Kathmandu'], new Date('2026-11-29T00:00:00Z'))).toEqual(new Date('2026-11-29T02:15:00Z'))
  })

  it('waits until it is day in every zone a number may be in', () => {
    // 13:00 UTC: 08:00 in New York, 05:00 in Los Angeles: held until 08:00 in Los Angeles.
    expect(quietUntil(['America/New_York', 'America/Los_Angeles'], new Date('2026-11-29T13:00:00Z'))).toEqual(new Date('2026-11-29T16:00:00Z'))
    // 03:00 UTC: 22:00 in New York, 19:00 in Los Angeles: held until 08:00 in Los Angeles.
    expect(quietUntil(['America/New_York', 'America/Los_Angeles'], new Date('2026-11-30T03:00:00Z'))).toEqual(new Date('2026-11-30T16:00:00Z'))
  })

  it('lets the middle zone decide when no hour is day in all of them', () => {
    // From Guam to Hawaii alone there are five hours of day in every zone (22:00–03:00 UTC)…
    expect(quietUntil(['Pacific/Guam', 'Pacific/Honolulu', 'America/New_York'], new Date('2026-11-29T18:00:00Z'))).toEqual(new Date('2026-11-29T22:00:00Z'))
    // …with Kolkata and London as well, none: London is the middle by offset.
    const all = ['Pacific/Guam', 'Pacific/Honolulu', 'Asia/Kolkata', 'Europe/London', 'America/Chicago']
    expect(quietUntil(all, new Date('2026-11-29T12:00:00Z'))).toBeUndefined()
    expect(quietUntil(all, new Date('2026-11-29T23:00:00Z'))).toEqual(new Date('2026-11-30T08:00:00Z'))
  })

  it('reads UTC when no zone is known', () => {
    expect(quietUntil([], new Date('2026-11-29T12:00:00Z'))).toBeUndefined()
    expect(quietUntil(['Etc/Unknown', 'Not/AZone'], new Date('2026-11-29T23:00:00Z'))).toEqual(new Date('2026-11-30T08:00:00Z'))
  })
})
