import { describe, expect, it } from 'vitest'
import { EVENT_TYPES } from './event-types'
import type { FullEventJson } from './task-document'
import { deliveryType, endpointIdOf } from './outbox'
import {
  deliveriesOfChange,
  deliveriesOfCarrierChange,
  deliveriesOfDeletion,
  eventsOfChange,
  type EndpointData,
  type EndpointSubscription,
  type TaskChange,
} from './task-events'
import type { TaskUpdate } from './tracking-update'

// Whom a change tells is decided by one rule per event type: every event type a user can subscribe
// to is made by some change or by the deletion, each rule answers for its own event alone, and the
// callback hears of status changes only.

const NOW = new Date('2026-11-26T10:00:00Z')
const previous = {
  standardStatus: 'in_transit',
  carrierStatus: 'In transit',
  milestone: 'in_transit',
  estimatedDeliveryAt: new Date('2026-11-27T18:00:00Z'),
} as const
const nothing: TaskUpdate = {
  standardStatus: 'in_transit',
  milestone: 'in_transit',
  carrierStatus: 'In transit',
  estimatedDeliveryAt: undefined,
  originAddress: undefined,
  destinationAddress: undefined,
  proofOfDelivery: undefined,
  lastNewEventAt: null,
  statusChanged: false,
  milestoneChanged: false,
  etaChanged: false,
}
const full = {
  taskId: 7,
  carrierCode: 'FEDEX',
  trackingNumber: '794843185271',
  externalReferenceNo: '',
  callbackUrl: 'https://shop.example/hook',
  standardStatus: 'delivered',
  milestone: 'delivered',
  carrierStatus: 'Delivered',
  estimatedDeliveryAt: null,
  predictedDeliveryAt: null,
  prediction: null,
  originAddress: { country: 'US', state: '', city: '', postalCode: '', address: '' },
  destinationAddress: { country: 'SG', state: '', city: '', postalCode: '', address: '' },
  proofOfDelivery: { signedBy: 'J. TAN', location: 'Front Door', signatureAvailable: false, documentUrl: null },
  trackingPageUrl: 'https://track.shop.example/t/QIrT0inzR7-2ETR-Y27KtL15QbIyxUgv',
  active: false,
  stoppedAt: null,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-26T10:00:00.000Z',
  lastCheckedAt: '2026-11-26T10:00:00.000Z',
  nextCheckAt: null,
  carrierChanges: [],
  carrierCorrection: null,
  events: [],
} satisfies EndpointData
const event: FullEventJson = {
  eventTime: '2026-11-26T09:00:00.000Z',
  eventCode: 'DL',
  status: 'delivered',
  statusInfo: 'Delivered',
  description: 'Delivered',
  exceptionDescription: '',
  country: 'SG',
  state: '',
  city: '',
  postalCode: '',
  address: '',
  milestone: 'delivered',
  localTime: '2026-11-26T17:00:00+08:00',
  utcOffset: '+08:00',
}
const everything: EndpointSubscription = { id: 1, eventTypes: [...EVENT_TYPES], carrierCodes: [], milestones: [] }

function change(update: Partial<TaskUpdate>, newEvents: FullEventJson[] = []): TaskChange {
  return { previous, update: { ...nothing, ...update }, newEventCount: newEvents.length, task: '{"taskId":7}', full, newEvents, newestEventAt: null }
}

describe('what a change tells whom', () => {
  it('makes every event type a user may subscribe to, from a change, a deletion or a carrier change', () => {
    const all = change({ statusChanged: true, milestoneChanged: true, etaChanged: true }, [event])
    const made = new Set(
      [
        ...deliveriesOfChange(all, { endpoints: [everything] }, NOW),
        ...deliveriesOfDeletion(full, { endpoints: [everything] }, NOW),
        ...deliveriesOfCarrierChange(full, { previousCarrierCode: 'USPS', reason: 'user' }, { endpoints: [everything] }, NOW),
      ].map(deliveryType),
    )
    expect([...made].sort()).toEqual([...EVENT_TYPES].sort())
  })

  it('answers each rule for its own event alone', () => {
    expect(eventsOfChange(change({}))).toEqual([])
    expect(eventsOfChange(change({ statusChanged: true }))).toEqual(['tracking.status_changed'])
    expect(eventsOfChange(change({ milestoneChanged: true }))).toEqual(['tracking.milestone_changed'])
    expect(eventsOfChange(change({ etaChanged: true }))).toEqual(['tracking.eta_changed'])
    expect(eventsOfChange(change({}, [event]))).toEqual(['tracking.events_added'])
  })

  it('tells the callback of status changes only, and an endpoint only what it chose and its filters hold', () => {
    const onlyEta: EndpointSubscription = { id: 2, eventTypes: ['tracking.eta_changed'], carrierCodes: [], milestones: [] }
    const otherCarrier: EndpointSubscription = { id: 3, eventTypes: [...EVENT_TYPES], carrierCodes: ['UPS'], milestones: [] }
    const deliveries = deliveriesOfChange(change({ milestoneChanged: true, etaChanged: true }), { endpoints: [onlyEta, otherCarrier] }, NOW)
    expect(deliveries.map((d) => [endpointIdOf(d.target), deliveryType(d)])).toEqual([[2, 'tracking.eta_changed']])
    const status = deliveriesOfChange(change({ statusChanged: true }), { endpoints: [] }, NOW)
    expect(status.map((d) => [endpointIdOf(d.target), deliveryType(d)])).toEqual([[null, 'tracking.status_changed']])
  })

  it('tells a carrier change to the endpoints that chose it and whose carrier filter holds the new carrier, never to the callback', () => {
    const chose: EndpointSubscription = { id: 4, eventTypes: ['tracking.carrier_changed'], carrierCodes: ['FEDEX'], milestones: [] }
    const oldCarrier: EndpointSubscription = { id: 5, eventTypes: ['tracking.carrier_changed'], carrierCodes: ['USPS'], milestones: [] }
    const deliveries = deliveriesOfCarrierChange(
      full,
      { previousCarrierCode: 'USPS', reason: 'auto_correct' },
      { endpoints: [chose, oldCarrier, everything] },
      NOW,
    )
    expect(deliveries.map((d) => [endpointIdOf(d.target), d.type])).toEqual([
      [4, 'tracking.carrier_changed'],
      [1, 'tracking.carrier_changed'],
    ])
    expect(deliveries[0]!.payload).toMatchObject({
      type: 'tracking.carrier_changed',
      data: { carrierCode: 'FEDEX', previousCarrierCode: 'USPS', reason: 'auto_correct' },
    })
  })
})
