import { describe, expect, it } from 'vitest'
import { proofOfDeliveryOf } from './tracking-task'

describe('a proof of delivery', () => {
  const said = { signedBy: '', location: '', signatureAvailable: false, documentUrl: '' }

  it('is null when the carrier said nothing of one', () => {
    expect(proofOfDeliveryOf(said)).toBeNull()
  })

  it('keeps a document link only when it is https', () => {
    expect(proofOfDeliveryOf({ ...said, documentUrl: 'https://webpod.dhl.com/webPOD/DHLePODRequest?x=1' })?.documentUrl).toBe(
      'https://webpod.dhl.com/webPOD/DHLePODRequest?x=1',
    )
    for (const url of ['http://webpod.dhl.com/x', 'javascript:alert(1)', 'not a url', '//webpod.dhl.com/x']) {
      expect(proofOfDeliveryOf({ ...said, signedBy: 'A', documentUrl: url })).toEqual({
        signedBy: 'A',
        location: '',
        signatureAvailable: false,
        documentUrl: null,
      })
    }
  })
})
