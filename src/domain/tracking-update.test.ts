import { describe, expect, it } from 'vitest'
import { localTimeOf, parseCarrierTime, resolveUpdate, writtenOffset, type CarrierSnapshot, type TaskRefreshState } from './tracking-update'

const DAY = 86_400_000
const now = new Date('2026-11-22T12:00:00Z')
const state: TaskRefreshState = {
  standardStatus: 'in_transit',
  milestone: 'in_transit',
  carrierStatus: 'In transit',
  estimatedDeliveryAt: null,
  createdAt: new Date(now.getTime() - DAY),
  lastNewEventAt: null,
}
const snapshot: CarrierSnapshot = {
  rawStatusCode: 'OD',
  standardStatus: 'in_transit',
  milestone: 'out_for_delivery',
  carrierStatus: 'On FedEx vehicle for delivery',
  estimatedDeliveryAt: null,
  originAddress: null,
  destinationAddress: null,
  proofOfDelivery: null,
  events: [],
}
const ctx = { now, expireAfterMs: 30 * DAY, newEventCount: 1 }

describe('resolveUpdate', () => {
  it('keeps ETA and addresses when the carrier returned none (rule 1)', () => {
    const update = resolveUpdate(state, snapshot, ctx)
    expect(update).toMatchObject({ estimatedDeliveryAt: undefined, originAddress: undefined, destinationAddress: undefined })
  })

  it('replaces them when it did', () => {
    const address = { country: 'US', state: 'NY', city: 'Blue Point', postalCode: '', address: '' }
    const eta = new Date('2026-11-25T00:00:00Z')
    const update = resolveUpdate(state, { ...snapshot, estimatedDeliveryAt: eta, destinationAddress: address }, ctx)
    expect(update).toMatchObject({ estimatedDeliveryAt: eta, destinationAddress: address, originAddress: undefined })
  })

  it('notifies on a change of standardStatus or of carrierStatus, and only then', () => {
    expect(resolveUpdate(state, snapshot, ctx).statusChanged).toBe(true)
    expect(resolveUpdate({ ...state, carrierStatus: snapshot.carrierStatus }, snapshot, ctx).statusChanged).toBe(false)
    expect(resolveUpdate({ ...state, carrierStatus: snapshot.carrierStatus }, { ...snapshot, standardStatus: 'delivered' }, ctx).statusChanged).toBe(true)
  })

  it('keeps the previous standard status for an unknown carrier code', () => {
    const update = resolveUpdate(state, { ...snapshot, standardStatus: null, carrierStatus: 'Teleported' }, ctx)
    expect(update).toMatchObject({ standardStatus: 'in_transit', carrierStatus: 'Teleported', statusChanged: true })
  })

  it('keeps the carrier status when the carrier gave no text', () => {
    expect(resolveUpdate(state, { ...snapshot, carrierStatus: '' }, ctx).carrierStatus).toBe('In transit')
  })

  it('records when a new event was last seen', () => {
    expect(resolveUpdate(state, snapshot, ctx).lastNewEventAt).toEqual(now)
    const earlier = new Date(now.getTime() - DAY)
    expect(resolveUpdate({ ...state, lastNewEventAt: earlier }, snapshot, { ...ctx, newEventCount: 0 }).lastNewEventAt).toEqual(earlier)
  })

  it('expires a task without a new event for the configured time', () => {
    const quiet = { ...state, lastNewEventAt: new Date(now.getTime() - 30 * DAY) }
    expect(resolveUpdate(quiet, snapshot, { ...ctx, newEventCount: 0 })).toMatchObject({ standardStatus: 'expired', statusChanged: true })
    expect(resolveUpdate({ ...quiet, lastNewEventAt: new Date(now.getTime() - 29 * DAY) }, snapshot, { ...ctx, newEventCount: 0 }).standardStatus).toBe(
      'in_transit',
    )
    // A new event resets the clock.
    expect(resolveUpdate(quiet, snapshot, ctx).standardStatus).toBe('in_transit')
  })

  it('expires a task the carrier has not found for the configured time, counted from its creation', () => {
    const young = { ...state, standardStatus: 'pending' as const, carrierStatus: '' }
    expect(resolveUpdate(young, undefined, { ...ctx, newEventCount: 0 })).toMatchObject({ standardStatus: 'pending', statusChanged: false })
    const old = { ...young, createdAt: new Date(now.getTime() - 31 * DAY) }
    expect(resolveUpdate(old, undefined, { ...ctx, newEventCount: 0 })).toMatchObject({ standardStatus: 'expired', carrierStatus: '', statusChanged: true })
  })

  it('never expires a terminal status', () => {
    const delivered = { ...state, standardStatus: 'delivered' as const, createdAt: new Date(0) }
    expect(resolveUpdate(delivered, { ...snapshot, standardStatus: 'delivered' }, { ...ctx, newEventCount: 0 }).standardStatus).toBe('delivered')
  })
})

describe('parseCarrierTime', () => {
  it.each([
    ['2024-08-20T12:41:57-04:00', '2024-08-20T16:41:57.000Z'],
    ['2024-08-15T00:00:00', '2024-08-15T00:00:00.000Z'],
    ['2026-11-22T18:00:00+08:00', '2026-11-22T10:00:00.000Z'],
    ['2026-01-01T00:00:00+0530', '2025-12-31T18:30:00.000Z'],
    ['2026-01-01T00:00:00.123Z', '2026-01-01T00:00:00.123Z'],
    ['2026-01-01', '2026-01-01T00:00:00.000Z'],
  ])('%s → %s', (input, expected) => {
    expect(parseCarrierTime(input)?.toISOString()).toBe(expected)
  })

  it.each([[''], ['yesterday'], ['2026-13-45T99:00:00Z'], [null], [42]])('%j → null', (input) => {
    expect(parseCarrierTime(input)).toBeNull()
  })
})

describe('an event’s local time', () => {
  it('is its UTC time at the carrier’s offset, written with that offset', () => {
    expect(localTimeOf(new Date('2026-11-25T22:03:00Z'), '-08:00')).toBe('2026-11-25T14:03:00-08:00')
    expect(localTimeOf(new Date('2026-11-25T22:03:00Z'), '+05:30')).toBe('2026-11-26T03:33:00+05:30')
    expect(localTimeOf(new Date('2026-11-25T22:03:00Z'), '+00:00')).toBe('2026-11-25T22:03:00+00:00')
  })

  it('is null without an offset: none is guessed', () => {
    expect(localTimeOf(new Date('2026-11-25T22:03:00Z'), null)).toBeNull()
  })

  it('reads the offset written on a carrier’s timestamp, not a Z', () => {
    expect(writtenOffset('2024-08-20T12:41:57-04:00')).toBe('-04:00')
    expect(writtenOffset('2026-11-25T14:03:00.331986369+0100')).toBe('+01:00')
    expect(writtenOffset('2024-08-20T12:41:57Z')).toBeNull()
    expect(writtenOffset('2024-08-15T00:00:00')).toBeNull()
    expect(writtenOffset(42)).toBeNull()
  })
})
