import type { StatusTable } from '../../src/carriers/status-table'
import { MILESTONE_NAMES, MILESTONES } from '../../src/domain/milestones'

/** A carrier's status table as docs/carriers.md shows it: one row per milestone it uses, in the milestones' order. */
export function renderStatusTable(codesTitle: string, table: StatusTable): string {
  const rows = MILESTONE_NAMES.filter((m) => table.byMilestone[m]?.length).map((m) => `| \`${m}\` | ${MILESTONES[m]} | ${table.byMilestone[m]!.join(', ')} |`)
  return [`| milestone | standardStatus | ${codesTitle} |`, '|---|---|---|', ...rows].join('\n')
}
