import { describe, expect, it } from 'vitest'
import { relativeTime, when } from './layout'

describe('times on the console', () => {
  const now = Date.parse('2026-11-27T09:22:30Z')

  it('are shown to the second, in UTC, with how long ago', () => {
    expect(when('2026-11-27T09:22:07.431Z', now).text).toBe(
      '<time datetime="2026-11-27T09:22:07.431Z">2026-11-27 09:22:07 UTC</time> <span class="muted">(23 s ago)</span>',
    )
    expect(when(null, now).text).toContain('—')
  })

  it.each([
    [now - 2_000, 'now'],
    [now - 90_000, '90 s ago'],
    [now - 180_000, '3 min ago'],
    [now + 3 * 3_600_000, 'in 3 h'],
    [now - 5 * 86_400_000, '5 d ago'],
  ])('%i reads %s', (ms, text) => {
    expect(relativeTime(ms, now)).toBe(text)
  })
})
