import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CarrierError, type CarrierAdapter } from './carrier'
import type { CarrierPlugin } from './carrier-plugin'
import { FEDEX } from './fedex/fedex.plugin'
import { CARRIERS, createCarrierSimulator } from './registry'

// Every carrier's adapter, its real HTTP code, against the project's simulator on loopback,
// which enforces the credentials given here.
const credentialsOf = (carrier: CarrierPlugin, value: (field: string) => string) =>
  Object.fromEntries(Object.keys(carrier.env.credentials).map((field) => [field, value(field)]))
const good = (carrier: CarrierPlugin) => credentialsOf(carrier, (field) => `${field}-ok`)

let sim: ReturnType<typeof createCarrierSimulator>
beforeAll(async () => {
  sim = createCarrierSimulator({ stepMs: 0, timeoutDelayMs: 1500, credentials: Object.fromEntries(CARRIERS.map((c) => [c.simulator.path, good(c)])) })
  await sim.start()
})
afterAll(() => sim.stop())

const adapter = (carrier: CarrierPlugin, credentials = good(carrier), baseUrl = sim.urlOf(carrier.simulator)): CarrierAdapter =>
  carrier.createAdapter({ baseUrl, credentials, timeoutMs: 500 })
const statsOf = (carrier: CarrierPlugin) => sim.stats().carriers[carrier.simulator.path]!

describe.each(CARRIERS.map((c) => [c.name, c] as const))('%s adapter', (name, carrier) => {
  const make = () => adapter(carrier)
  let seq = 0
  const unique = (prefix: string) => `${prefix}${name.toUpperCase()}${Date.now()}${++seq}`

  it('fetches a batch, asking for a token once and reusing it', async () => {
    const client = make()
    try {
      const before = statsOf(carrier).tokenRequests
      const numbers = Array.from({ length: client.maxBatchSize }, () => unique('DL'))
      for (let i = 0; i < 5; i++) {
        const lookups = await client.fetch(numbers)
        expect(lookups.size).toBe(numbers.length)
        const first = lookups.get(numbers[0]!)
        expect(first?.found && first.snapshot.standardStatus).toBe('delivered')
        expect(first?.found && first.snapshot.events.map((e) => e.status)).toEqual(['pending', 'in_transit', 'in_transit', 'in_transit', 'delivered'])
      }
      // A token is asked for once and kept; a key needs none.
      expect(statsOf(carrier).tokenRequests - before).toBe(carrier.usesToken ? 1 : 0)
    } finally {
      await client.close()
    }
  })

  it('answers not-found numbers per number', async () => {
    const client = make()
    const [missing, present] = [unique('NF'), unique('EX')]
    const lookups = await client.fetch([missing, present])
    expect(lookups.get(missing)).toMatchObject({ found: false })
    expect(lookups.get(present)).toMatchObject({ found: true, snapshot: { standardStatus: 'exception' } })
    await client.close()
  })

  it(carrier.usesToken ? 'renews an expired token once and goes on' : 'says a refused key is a refused key, and goes on once accepted', async () => {
    const client = make()
    await client.fetch([unique('DL')])
    const before = statsOf(carrier).tokenRequests
    const number = unique('FEXPIRED')
    if (carrier.usesToken) {
      const lookups = await client.fetch([number])
      expect([...lookups.values()][0]).toMatchObject({ found: true })
      expect(statsOf(carrier).tokenRequests - before).toBe(1)
    } else {
      await expect(client.fetch([number])).rejects.toMatchObject({ failure: 'unauthorized' })
      expect((await client.fetch([number])).get(number)).toMatchObject({ found: true })
    }
    await client.close()
  })

  it.each([
    ['F429', 'rate_limited', 1000],
    ['F500', 'server_error', undefined],
    ['FGARBAGE', 'bad_response', undefined],
    ['FTIMEOUT', 'timeout', undefined],
  ])('turns %s into CarrierError %s, then recovers', async (prefix, failure, retryAfterMs) => {
    const client = make()
    const number = unique(prefix)
    const error = await client.fetch([number, unique('DL')]).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CarrierError)
    expect(error).toMatchObject({ failure, retryAfterMs })
    await client.fetch([number]).catch(() => {})
    const recovered = await client.fetch([number])
    expect(recovered.get(number)).toMatchObject({ found: true })
    await client.close()
  })

  it('reports refused credentials as unauthorized', async () => {
    const client = adapter(
      carrier,
      credentialsOf(carrier, () => 'wrong'),
    )
    await expect(client.fetch(['DL1'])).rejects.toMatchObject({ failure: 'unauthorized' })
    await client.close()
  })

  it('reports an unreachable carrier as a network failure', async () => {
    const client = adapter(carrier, good(carrier), 'http://127.0.0.1:1/')
    await expect(client.fetch(['DL1'])).rejects.toMatchObject({ failure: 'network' })
    await client.close()
  })
})

describe('FedEx reused number through the simulator', () => {
  it('follows the live shipment, not the old one', async () => {
    const client = adapter(FEDEX)
    const number = `RU${Date.now()}`
    const lookup = (await client.fetch([number])).get(number)
    if (!lookup?.found) throw new Error('expected found')
    const newest = lookup.snapshot.events.at(-1)!.eventTime.getTime()
    expect(Date.now() - newest).toBeLessThan(60 * 60_000)
    await client.close()
  })
})
