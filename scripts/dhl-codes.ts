// Writes src/carriers/dhl/dhl-codes.json, the DHL plugin's code tables, from DHL's kit
// (test/fixtures/carriers/dhl/status-codes.json): every statusCode, every parcel-de
// statusDetailed (ICE) value, every per-service event code with its description, and the text
// patterns in their order. src/carriers/dhl/dhl.mapper.test.ts holds the two alike.
//   node --import tsx scripts/dhl-codes.ts
import { readFileSync, writeFileSync } from 'node:fs'

type Entry = { milestone: string; ignoreForStatus?: boolean; description?: string }
const kit = JSON.parse(readFileSync(new URL('../test/fixtures/carriers/dhl/status-codes.json', import.meta.url), 'utf8')) as {
  statusCodes: Record<string, Entry>
  parcelDeStatusDetailed: Record<string, Entry | string>
  serviceEventCodes: Record<string, Record<string, Entry | string>>
  textPatterns: { milestone: string; pattern: string }[]
}
const rows = <T>(table: Record<string, T | string>) => Object.entries(table).filter(([key]) => !key.startsWith('_')) as [string, T][]
// [milestone, moves the status (0: no), description]
const codes = {
  statusCodes: Object.fromEntries(rows(kit.statusCodes).map(([code, e]) => [code, [e.milestone, e.ignoreForStatus ? 0 : 1]])),
  statusDetailed: Object.fromEntries(rows(kit.parcelDeStatusDetailed).map(([code, e]) => [code, [e.milestone, e.ignoreForStatus ? 0 : 1]])),
  services: Object.fromEntries(
    rows(kit.serviceEventCodes).map(([service, table]) => [
      service,
      Object.fromEntries(rows(table as Record<string, Entry>).map(([code, e]) => [code, [e.milestone, e.ignoreForStatus ? 0 : 1, e.description ?? '']])),
    ]),
  ),
  textPatterns: kit.textPatterns.map((p) => [p.milestone, p.pattern]),
}
writeFileSync(new URL('../src/carriers/dhl/dhl-codes.json', import.meta.url), `${JSON.stringify(codes)}\n`)
console.log('src/carriers/dhl/dhl-codes.json written')
