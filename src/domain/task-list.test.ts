import { describe, expect, it } from 'vitest'
import { listedMilestones } from './task-list'

describe('listedMilestones: what the status and milestone filters leave', () => {
  it('is no restriction without either filter', () => {
    expect(listedMilestones({ carrierCode: 'FEDEX' })).toBeUndefined()
  })

  it('reads a status as its milestones', () => {
    expect(listedMilestones({ standardStatus: ['exception'] })).toEqual(['failed_attempt', 'exception'])
    expect(listedMilestones({ standardStatus: ['delivered'] })).toEqual(['delivered'])
  })

  it('keeps the milestones both filters allow', () => {
    expect(listedMilestones({ milestone: ['out_for_delivery', 'delivered'] })).toEqual(['out_for_delivery', 'delivered'])
    expect(listedMilestones({ standardStatus: ['in_transit'], milestone: ['out_for_delivery', 'delivered'] })).toEqual(['out_for_delivery'])
  })

  it('is empty when they contradict each other: nothing can match', () => {
    expect(listedMilestones({ standardStatus: ['delivered'], milestone: ['out_for_delivery'] })).toEqual([])
  })
})
