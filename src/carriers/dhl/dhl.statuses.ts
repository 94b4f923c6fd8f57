import { readFileSync } from 'node:fs'
import { MILESTONES, type Milestone } from '../../domain/milestones'
import { StatusTable, type CodeMeaning } from '../status-table'

/**
 * DHL Unified's statuses (docs/carriers.md, "DHL"). `dhl-codes.json` is written from DHL's kit by
 * scripts/dhl-codes.ts: the five `statusCode` values, every parcel-de `statusDetailed` (ICE)
 * value, every per-service event code with its description, and the text patterns in English and
 * German, each as [milestone, moves the status (1) or not (0)]. The kit's _README gives the order
 * they are tried in, which `dhlMeaning` follows.
 */
interface DhlCodes {
  statusCodes: Record<string, [Milestone, number]>
  statusDetailed: Record<string, [Milestone, number]>
  services: Record<string, Record<string, [Milestone, number, string]>>
  textPatterns: [Milestone, string][]
}
const CODES = JSON.parse(readFileSync(new URL('./dhl-codes.json', import.meta.url), 'utf8')) as DhlCodes

/** Express codes DHL's list leaves out, seen in other sources: read as Express's own. */
const SERVICES: Record<string, Record<string, [Milestone, number, string]>> = {
  ...CODES.services,
  express: { ...CODES.services.express, ...CODES.services.expressCodesNotInDhlList },
}
const PATTERNS = CODES.textPatterns.map(([milestone, pattern]) => ({ milestone, pattern: new RegExp(pattern, 'iu') }))

/** DHL Paket's two-letter codes (the `status` of parcel-de events since 2024): the table docs/carriers.md shows. */
export const DHL_STATUSES = new StatusTable(
  Object.entries(CODES.services['parcel-de']!).reduce<Partial<Record<Milestone, string[]>>>((table, [code, [milestone]]) => {
    ;(table[milestone] ??= []).push(code)
    return table
  }, {}),
)

/** What an event says: a meaning, or that it moves no status (a data event, "unknown"). */
export type DhlMeaning = CodeMeaning | 'no_change'

const meaningOf = ([milestone, moves]: [Milestone, number, ...unknown[]]): DhlMeaning => (moves ? { status: MILESTONES[milestone], milestone } : 'no_change')

export interface DhlEventFields {
  statusCode: string
  status: string
  statusDetailed: string
  description: string
  remark: string
}

/**
 * An event's meaning, first hit wins: (1) parcel-de's statusDetailed (an unknown one by its last
 * part, the two-letter code); (2) `status` as a code of the service (Express: only two capitals
 * or 101-104); (3) `status` as the description of exactly one of the service's codes (eCommerce
 * writes "ARRIVED AT CUSTOMS"; not svb, whose descriptions are groups, nor Express, whose list
 * names differ from its real texts); (4) the text patterns over description, remark and status;
 * (5) the coarse statusCode. null when nothing is known (an Express event without statusCode:
 * the caller decides).
 */
export function dhlMeaning(service: string, e: DhlEventFields): DhlMeaning | null {
  const codes = SERVICES[service] ?? {}
  if (service === 'parcel-de' && e.statusDetailed) {
    const detailed = CODES.statusDetailed[e.statusDetailed] ?? codes[e.statusDetailed.split('_').at(-1)!]
    if (detailed) return meaningOf(detailed)
  }
  if (e.status && Object.hasOwn(codes, e.status) && (service !== 'express' || /^([A-Z]{2}|10[1-4])$/.test(e.status))) return meaningOf(codes[e.status]!)
  if (e.status && service !== 'svb' && service !== 'express') {
    const text = e.status.trim().toLowerCase()
    const named = Object.values(codes).filter(([, , description]) => description.trim().toLowerCase() === text)
    if (named.length === 1) return meaningOf(named[0]!)
  }
  const texts = [e.description, e.remark, e.status].filter(Boolean)
  const hit = PATTERNS.find((p) => texts.some((text) => p.pattern.test(text)))
  if (hit) return { status: MILESTONES[hit.milestone], milestone: hit.milestone }
  const coarse = CODES.statusCodes[e.statusCode]
  return coarse ? meaningOf(coarse) : null
}

/** Every code the tables know, by table: for the test that holds them to DHL's kit. */
export const DHL_CODE_TABLES = { statusCodes: CODES.statusCodes, statusDetailed: CODES.statusDetailed, services: SERVICES }
