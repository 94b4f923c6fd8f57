import { describe, expect, it } from 'vitest'
import { parseTrackingNumber } from './subscription-input'

describe('parseTrackingNumber', () => {
  it.each([
    ['A'.repeat(64), true],
    ['A'.repeat(65), false],
    ['\t X1 \n', true],
    ['X\u00a0Y', false],
    ['X\u2028Y', false],
    ['X\u202eY', false],
    ['ÄÖÜ-123', true],
  ])('%j → ok=%s', (value, ok) => {
    expect(parseTrackingNumber(value).ok).toBe(ok)
  })
})
