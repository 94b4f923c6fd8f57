import { MILESTONES, type Milestone } from '../domain/milestones'
import type { StandardStatus } from '../domain/statuses'

/** What a carrier's status code means: its standard status and its milestone (one of the status's). */
export interface CodeMeaning {
  status: StandardStatus
  milestone: Milestone
}

/**
 * A carrier's code table, written by milestone: each code's standard status is its milestone's,
 * so the two can never disagree. docs/carriers.md renders the same tables from the code.
 */
export class StatusTable {
  private readonly byCode = new Map<string, CodeMeaning>()

  constructor(readonly byMilestone: Partial<Record<Milestone, readonly string[]>>) {
    for (const [milestone, codes] of Object.entries(byMilestone) as [Milestone, readonly string[]][]) {
      for (const code of codes) {
        if (this.byCode.has(code)) throw new Error(`status code ${code} is in the table twice`)
        this.byCode.set(code, { status: MILESTONES[milestone], milestone })
      }
    }
  }

  /** The meaning of a code (trimmed, any case); null for a code the table does not know. */
  meaning(code: unknown): CodeMeaning | null {
    return typeof code === 'string' ? (this.byCode.get(code.trim().toUpperCase()) ?? null) : null
  }

  get codes(): string[] {
    return [...this.byCode.keys()]
  }
}
