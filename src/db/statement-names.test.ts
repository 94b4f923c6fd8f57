import { describe, expect, it } from 'vitest'
import { StatementNames } from './statement-names'

describe('StatementNames', () => {
  it('names a text the same way every time', () => {
    const names = new StatementNames('list', 2)
    const first = names.nameOf('SELECT 1')
    expect(first).toMatch(/^list_[0-9a-f]{16}$/)
    expect(names.nameOf('SELECT 1')).toBe(first)
    expect(names.nameOf('SELECT 2')).not.toBe(first)
  })

  it('names at most `max` texts; any further one runs unnamed, the named ones keep their names', () => {
    const names = new StatementNames('list', 2)
    const [a, b] = [names.nameOf('SELECT 1'), names.nameOf('SELECT 2')]
    expect(names.nameOf('SELECT 3')).toBeUndefined()
    expect(names.nameOf('SELECT 4')).toBeUndefined()
    expect([names.nameOf('SELECT 1'), names.nameOf('SELECT 2')]).toEqual([a, b])
  })
})
