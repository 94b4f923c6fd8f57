import { describe, expect, it } from 'vitest'
import { parseTaskQuery } from './task-query'

describe('parseTaskQuery', () => {
  it.each([
    [{ taskId: '42' }, { by: 'taskId', taskId: 42 }],
    [{ taskId: '007' }, { by: 'taskId', taskId: 7 }],
    [{ taskId: '9007199254740993' }, { by: 'none' }],
    [{ trackingNumber: ' X1 ' }, { by: 'trackingNumber', trackingNumber: 'X1' }],
  ])('%j → %j', (query, lookup) => {
    expect(parseTaskQuery(query)).toEqual({ ok: true, lookup })
  })

  it.each([
    [{}],
    [{ taskId: '1', trackingNumber: 'X' }],
    [{ taskId: '1.5' }],
    [{ taskId: '-1' }],
    [{ taskId: '0' }],
    [{ taskId: '000' }],
    [{ taskId: ' 1' }],
    [{ taskId: '1'.repeat(31) }],
    [{ taskId: ['1', '2'] }],
    [{ trackingNumber: '' }],
  ])('refuses %j', (query) => {
    expect(parseTaskQuery(query).ok).toBe(false)
  })
})
