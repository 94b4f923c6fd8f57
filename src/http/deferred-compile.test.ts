import { describe, expect, it } from 'vitest'
import { DeferredCompiles, type Validator } from './deferred-compile'

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((r) => setImmediate(r))
  expect(condition()).toBe(true)
}

describe('DeferredCompiles', () => {
  it('compiles a validator at its first call and hands on its errors', () => {
    const deferred = new DeferredCompiles()
    let compiles = 0
    const validate = deferred.validator(() => {
      compiles++
      const v: Validator = (data) => {
        v.errors = data === 1 ? null : [{ message: 'not 1' }]
        return data === 1
      }
      return v
    })
    expect(compiles).toBe(0)
    expect(validate(2)).toBe(false)
    expect(validate.errors).toEqual([{ message: 'not 1' }])
    expect(validate(1)).toBe(true)
    expect(validate.errors).toBeNull()
    expect(compiles).toBe(1)
  })

  it('compiles what no call needed once told to, each once, and reports a schema that fails', async () => {
    const deferred = new DeferredCompiles()
    const compiled: string[] = []
    const used = deferred.serializer(() => (compiled.push('used'), (data) => JSON.stringify(data)))
    deferred.serializer(() => (compiled.push('unused'), (data) => JSON.stringify(data)))
    deferred.validator(() => {
      compiled.push('broken')
      throw new Error('no such keyword')
    })
    expect(used({ a: 1 })).toBe('{"a":1}')
    const failures: unknown[] = []
    deferred.compileRest((error) => failures.push(error))
    await until(() => compiled.length === 3)
    expect(compiled).toEqual(['used', 'unused', 'broken'])
    expect(failures).toEqual([new Error('no such keyword')])
  })
})
