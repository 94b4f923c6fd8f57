import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { STAGE_KINDS } from '../simulator/stories'
import { CARRIERS, pluginsByAggregatorKey, ROUTES } from './registry'
import { routedCarrierByKey } from './seventeentrack/seventeentrack.carriers'

// A carrier is one folder plus one line in the registry: these fail when a carrier lacks a part.
describe.each(CARRIERS.map((c) => [c.code, c] as const))('carrier %s', (code, carrier) => {
  it('has a code of capitals and digits, a name and numbers per request', () => {
    expect(code).toMatch(/^[A-Z][A-Z0-9]{1,31}$/)
    expect(code).not.toBe('AUTO')
    expect(carrier.name).not.toBe('')
    expect(carrier.numbersPerRequest).toBeGreaterThanOrEqual(1)
  })

  it('has detection formats whose examples match them, with their check digit', () => {
    expect(carrier.formats.length).toBeGreaterThan(0)
    for (const format of carrier.formats) {
      expect(format.example, format.name).toMatch(format.pattern)
      if (format.checkDigit) expect(format.checkDigit(format.example), format.name).toBe(true)
    }
  })

  it('has a table entry for every code its simulator emits, at every stage of the stories', () => {
    for (const kind of STAGE_KINDS) {
      const emitted = carrier.simulator.emittedCodes[kind]
      expect(carrier.statusTable.meaning(emitted), `${kind}: ${emitted}`).not.toBeNull()
    }
  })

  it('names its environment: API URL, credentials and request budget', () => {
    expect(carrier.env.apiUrl.variable).toMatch(/^[A-Z0-9_]+_API_URL$/)
    expect(Object.keys(carrier.env.credentials).length).toBeGreaterThan(0)
    expect(carrier.env.requestBudget.fallback.requests).toBeGreaterThan(0)
  })
})

describe('the registry', () => {
  it('holds each code, simulator path and variable once', () => {
    const unique = (values: string[]) => expect(new Set(values).size).toBe(values.length)
    unique(CARRIERS.map((c) => c.code))
    unique(CARRIERS.map((c) => c.simulator.path))
    unique(CARRIERS.flatMap((c) => [c.env.apiUrl.variable, c.env.requestBudget.variable, ...Object.values(c.env.credentials)]))
  })

  it('is the only place outside their folders where carrier codes are spelled (source, not tests or migrations)', () => {
    const src = new URL('..', import.meta.url).pathname
    const files: string[] = []
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) walk(path)
        else if (path.endsWith('.ts') && !path.endsWith('.test.ts')) files.push(path)
      }
    }
    walk(src)
    const offenders: string[] = []
    for (const file of files) {
      const where = relative(src, file)
      if (where === 'carriers/registry.ts') continue
      // OpenAPI examples are documentation, not a place the code decides anything.
      const text = readFileSync(file, 'utf8').replace(/examples: \[[^\]]*\]/g, '')
      for (const carrier of CARRIERS) {
        const folder = `carriers/${carrier.simulator.path}/`
        if (where.startsWith(folder)) continue
        if (new RegExp(`['"\`]${carrier.code}['"\`]`).test(text)) offenders.push(`${where}: ${carrier.code}`)
      }
    }
    expect(offenders).toEqual([])
  })
})

describe('our carriers’ keys at the aggregators', () => {
  it('are each one plugin’s, never a carrier the route serves itself', () => {
    const declared = CARRIERS.flatMap((c) => Object.values(c.aggregatorKeys ?? {}).flat())
    expect(new Set(declared).size).toBe(declared.length)
    for (const key of pluginsByAggregatorKey(ROUTES[0]!).keys()) expect(routedCarrierByKey(key), `${key}`).toBeUndefined()
    expect(pluginsByAggregatorKey(ROUTES[0]!).get(100002)).toBe('UPS')
  })
})
