import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Milestone } from '../domain/milestones'
import { STORIES, type StageKind, type StoryName } from '../simulator/stories'
import type { CarrierLookup } from './carrier'
import { CARRIERS } from './registry'
import { goodCredentials, milestones, STEP, storyWalk } from '../../test/support/story-walk'

// Every carrier of the registry walks every story of the simulator through its real adapter, one
// stage a fetch (stories.ts): the milestones each stage must read as, the codes its answers carry,
// what a number it does not know reads as. What is the carrier's own is in its row of CARRIER_FACTS.

/** The milestone each kind of stage reads as, whatever the carrier. */
const STAGE_MILESTONES: Record<StageKind, Milestone> = {
  label: 'info_received',
  picked_up: 'in_transit',
  in_transit: 'in_transit',
  out_for_delivery: 'out_for_delivery',
  delivered: 'delivered',
  exception: 'exception',
  failed_attempt: 'failed_attempt',
  out_again: 'out_for_delivery',
  held_for_pickup: 'available_for_pickup',
  picked_up_by_recipient: 'delivered',
  returned: 'returned',
  cancelled: 'cancelled',
}

/** The prefix that selects each story (stories.ts); the delivered one is any other. */
const PREFIXES: Record<StoryName, string> = {
  delivered: 'DL',
  exception: 'EX',
  failed_attempt: 'FA',
  held_for_pickup: 'HP',
  returned: 'RS',
  cancelled: 'CA',
}

interface CarrierFacts {
  /** The milestones of a story the carrier cannot tell as the others do. */
  stories?: Partial<Record<StoryName, Milestone[]>>
  /** The codes of a delivered story's events, oldest first, when they are not the simulator's emitted codes. */
  deliveredCodes?: string[]
  /** The carrier status of a delivered shipment, as the carrier words it. */
  deliveredStatus: string
  /** How a number the carrier does not know is reported. */
  notFound: string
  /** A failed attempt moves the carrier's estimated delivery a day; null: the carrier gives none. */
  etaSlips: boolean | null
}

const CARRIER_FACTS: Record<string, CarrierFacts> = {
  FEDEX: { deliveredStatus: 'Delivered', notFound: 'TRACKING.TRACKINGNUMBER.NOTFOUND', etaSlips: true },
  UPARCEL: {
    // uParcel has no pick-up points: a held parcel stays in transit.
    stories: { held_for_pickup: ['info_received', 'in_transit', 'in_transit', 'in_transit', 'delivered'] },
    deliveredStatus: 'Delivered',
    notFound: 'not_found',
    etaSlips: true,
  },
  UPS: { deliveredStatus: 'DELIVERED', notFound: 'TW0001', etaSlips: true },
  USPS: {
    // USPS has no cancellation: a voided label stays a label.
    stories: { cancelled: ['info_received', 'info_received'] },
    deliveredStatus: 'Delivered, In/At Mailbox',
    notFound: 'HTTP 400 150001',
    etaSlips: true,
  },
  DHL: {
    deliveredCodes: ['PARCV_NRQRD_VA', 'LDTMV_MVMTV_AA', 'ULFMV_UNLDD_EE', 'SRTED_NRQRD_PO', 'DLVRD_NGHBR_ZU'],
    deliveredStatus: 'The shipment has been successfully delivered',
    notFound: 'HTTP 404',
    etaSlips: true,
  },
  LAPOSTE: {
    // La Poste reports no cancelled label: it stays declared.
    stories: { cancelled: ['info_received', 'info_received'] },
    deliveredStatus: 'Votre colis est livré.',
    notFound: 'returnCode 404',
    etaSlips: true,
  },
  GLS: {
    // GLS's kit knows no event for a damaged parcel: the simulator tells it as not delivered.
    stories: { exception: ['info_received', 'in_transit', 'in_transit', 'out_for_delivery', 'failed_attempt'] },
    deliveredStatus: 'The parcel has been delivered.',
    notFound: 'E_404_01',
    etaSlips: null,
  },
  CANADAPOST: {
    // Canada Post has no cancellation known: a voided label stays the shipper's information.
    stories: { cancelled: ['info_received', 'info_received'] },
    deliveredStatus: 'Item successfully delivered',
    notFound: '004',
    etaSlips: true,
  },
}

// The simulator follows a number's story whichever carrier asks: each walk gets a number of its own.
let serial = 0
const walker = storyWalk({ credentials: Object.fromEntries(CARRIERS.map((c) => [c.simulator.path, goodCredentials(c)])) })
beforeAll(() => walker.start())
afterAll(() => walker.stop())

it('has the facts of every carrier of the registry', () => {
  expect(Object.keys(CARRIER_FACTS).sort()).toEqual(CARRIERS.map((c) => c.code).sort())
})

describe.each(CARRIERS.map((c) => [c.name, c] as const))('%s stories through the simulator', (_name, carrier) => {
  const facts = CARRIER_FACTS[carrier.code]!
  const number = (prefix: string) => carrier.simulator.storyNumber(prefix, ++serial)
  const adapter = () => walker.adapter(carrier)
  const found = (lookup: CarrierLookup | undefined) => {
    if (!lookup?.found) throw new Error(`expected a found lookup, got ${JSON.stringify(lookup)}`)
    return lookup.snapshot
  }

  it.each(Object.keys(STORIES) as StoryName[])('%s: each stage reads as its milestone', async (story) => {
    const stages = STORIES[story]
    const seen = await walker.walk(adapter(), number(PREFIXES[story]), stages.length)
    expect(milestones(seen)).toEqual(facts.stories?.[story] ?? stages.map((s) => STAGE_MILESTONES[s.kind]))
  })

  it("delivered: the stages' codes in order, a stage apart, the carrier's words for the status", async () => {
    const last = found((await walker.walk(adapter(), number('DL'), STORIES.delivered.length)).at(-1))
    expect(last.events.map((e) => e.eventCode)).toEqual(facts.deliveredCodes ?? STORIES.delivered.map((s) => carrier.simulator.emittedCodes[s.kind]))
    expect(last.carrierStatus).toBe(facts.deliveredStatus)
    const times = last.events.map((e) => e.eventTime.getTime())
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual(Array(times.length - 1).fill(STEP))
  })

  it('failed attempt: the estimated delivery moves a day when the carrier gives one', async () => {
    const seen = await walker.walk(adapter(), number('FA'), STORIES.failed_attempt.length)
    const eta = (i: number) => found(seen[i]).estimatedDeliveryAt
    if (facts.etaSlips === null) expect([eta(3), eta(4)]).toEqual([null, null])
    else expect(eta(4)!.getTime() - eta(3)!.getTime()).toBe(facts.etaSlips ? 86_400_000 : 0)
  })

  it('a returned shipment is returned, whatever its last event says, and no event of it says delivered', async () => {
    const seen = await walker.walk(adapter(), number('RS'), STORIES.returned.length)
    const last = found(seen.at(-1))
    expect(last.standardStatus).toBe('returned')
    expect(last.events.filter((e) => e.status === 'delivered' || e.milestone === 'delivered').map((e) => e.eventCode)).toEqual([])
  })

  it('a reused number: the shipment whose it is now, not the older one beside it', async () => {
    const [first] = await walker.walk(adapter(), number('RU'), 1)
    expect(first).toMatchObject({ found: true, snapshot: { milestone: 'info_received' } })
  })

  it('a number the carrier does not know: pending, with the carrier’s reason', async () => {
    expect(await walker.walk(adapter(), number('NF'), 1)).toEqual([{ found: false, reason: facts.notFound }])
  })

  it(carrier.usesToken ? 'shares one token across requests' : 'asks for no token', async () => {
    const client = adapter()
    await walker.walk(client, number('DL'), 1)
    const before = walker.tokenRequests(carrier)
    await walker.walk(client, number('DL'), 3)
    expect(walker.tokenRequests(carrier)).toBe(before)
  })
})
