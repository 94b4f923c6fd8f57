import { describe, expect, it } from 'vitest'
import { unsupportedCarrierMessage, type CarrierResolver } from '../../domain/carriers'
import { validateSubscription } from '../../domain/subscription-input'
import { checkSubscription } from './subscription.schema'

// A subscription as the service judges it: its schema's check, then the domain's rules. The
// service resolves carriers from the registry (carrier-catalog.service.test.ts); here, two known codes.
const resolve: CarrierResolver = (carrierCode) =>
  ['FEDEX', 'UPARCEL'].includes(carrierCode)
    ? { ok: true, carrierCode }
    : { ok: false, error: 'unsupported_carrier', message: unsupportedCarrierMessage(['FEDEX', 'UPARCEL']) }
const check = (input: unknown) => validateSubscription({ body: input, refused: checkSubscription(input) }, resolve)

const valid = { carrierCode: 'fedex', trackingNumber: ' 123 ', callbackUrl: 'https://a.example/hook' }

describe('validateSubscription', () => {
  it('normalises a valid request', () => {
    expect(check(valid)).toEqual({
      ok: true,
      value: { carrierCode: 'FEDEX', trackingNumber: '123', callbackUrl: 'https://a.example/hook', externalReferenceNo: '' },
    })
  })

  it('judges field problems before the carrier', () => {
    const result = check({ ...valid, carrierCode: 'acme', callbackUrl: 'nope' })
    expect(result).toMatchObject({ ok: false, error: 'validation_error', carrierCode: 'ACME', details: [{ field: 'callbackUrl' }] })
  })

  it('answers unsupported_carrier for a well-formed request to an unknown carrier', () => {
    expect(check({ ...valid, carrierCode: ' acme ' })).toMatchObject({ ok: false, error: 'unsupported_carrier', carrierCode: 'ACME', trackingNumber: '123' })
  })

  it.each([['http://localhost:8080/x'], ['https://user:pw@a.example/x?y=1#z'], ['http://[::1]/x'], ['https://bücher.example/']])(
    'accepts the URL %s',
    (callbackUrl) => {
      expect(check({ ...valid, callbackUrl }).ok).toBe(true)
    },
  )

  it.each([['https://'], ['http:/a'], ['mailto:a@b.c'], ['file:///etc/passwd'], ['https://a.example/ x'], ['']])('refuses the URL %j', (callbackUrl) => {
    expect(check({ ...valid, callbackUrl })).toMatchObject({ ok: false, error: 'validation_error' })
  })

  it('judges each URL on its own, however the URLs before it were judged', () => {
    // The verdict of the last URL is remembered (batch items share one): it must never leak.
    const verdicts = [
      'https://a.example/1',
      'https:/bad',
      'https:/bad',
      'https://a.example/1',
      'https://a.example/1',
      'https:/bad',
      42,
      42,
      'https://a.example/2',
    ].map((callbackUrl) => check({ ...valid, callbackUrl }))
    expect(verdicts.map((v) => v.ok)).toEqual([true, false, false, true, true, false, false, false, true])
    expect(verdicts[2]).toEqual(verdicts[1])
    expect(verdicts[7]).toMatchObject({ ok: false, details: [{ field: 'callbackUrl', message: 'must be a string' }] })
  })

  it('counts length in code points', () => {
    expect(check({ ...valid, externalReferenceNo: '😀'.repeat(128) }).ok).toBe(true)
    expect(check({ ...valid, externalReferenceNo: '😀'.repeat(129) }).ok).toBe(false)
  })
})
