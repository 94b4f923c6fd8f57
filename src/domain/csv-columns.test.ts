import { describe, expect, it } from 'vitest'
import { importHeader, importItem, inert } from './csv-columns'

describe('CSV columns', () => {
  it('read a header in any order and case, and a row as a subscribe body with a recipient only when one is given', () => {
    const header = importHeader(['TrackingNumber', ' carriercode ', 'callbackUrl', 'recipientPhone'])
    expect(header).toEqual({ ok: true, columns: ['trackingNumber', 'carrierCode', 'callbackUrl', 'recipientPhone'] })
    const columns = header.ok ? header.columns : []
    expect(importItem(columns, ['123', 'FEDEX', 'https://x.example/', ''])).toEqual({
      carrierCode: 'FEDEX',
      trackingNumber: '123',
      callbackUrl: 'https://x.example/',
    })
    expect(importItem(columns, ['123', 'FEDEX', 'https://x.example/', '+491701234567'])).toMatchObject({ recipient: { phone: '+491701234567' } })
  })

  it('write a cell a spreadsheet would run after a quote, and leave any other as it is', () => {
    for (const cell of ['=1+1', '+491701234567', '-2', '@SUM(A1)', '\t=x', '\r=x']) expect(inert(cell)).toBe(`'${cell}`)
    for (const cell of ['', 'FEDEX', "'already", '1=1', 'a@b.example']) expect(inert(cell)).toBe(cell)
  })
})
