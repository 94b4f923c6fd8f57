import { describe, expect, it } from 'vitest'
import { rangeReading } from './transit-report'

describe('a range of delivery days, as months and days', () => {
  it.each([
    ['everything', undefined, undefined, { months: { from: null, to: null }, days: [] }],
    ['whole months', '2026-03-01', '2026-04-30', { months: { from: '2026-03-01', to: '2026-04-01' }, days: [] }],
    [
      'months with cut ends',
      '2026-03-15',
      '2026-05-10',
      {
        months: { from: '2026-04-01', to: '2026-04-01' },
        days: [
          ['2026-03-15', '2026-03-31'],
          ['2026-05-01', '2026-05-10'],
        ],
      },
    ],
    ['no whole month', '2026-03-15', '2026-04-10', { months: null, days: [['2026-03-15', '2026-04-10']] }],
    ['one day', '2026-02-28', '2026-02-28', { months: null, days: [['2026-02-28', '2026-02-28']] }],
    ['from a cut month on', '2026-12-02', undefined, { months: { from: '2027-01-01', to: null }, days: [['2026-12-02', '2026-12-31']] }],
    ['up to a cut month', undefined, '2028-02-28', { months: { from: null, to: '2028-01-01' }, days: [['2028-02-01', '2028-02-28']] }],
    ['up to a leap month’s end', undefined, '2028-02-29', { months: { from: null, to: '2028-02-01' }, days: [] }],
  ])('%s', (_name, from, to, reading) => {
    expect(rangeReading(from, to)).toEqual(reading)
  })
})
