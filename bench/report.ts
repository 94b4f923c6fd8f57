/** How the bench's figure modules report: one row of the printed table, numbers as people read them. */

export type Row = (db: string, figure: string, value: string, ceiling: string, ratio: string, target: string) => void

/** What a figure module is given: the database it runs on, how to reach it, and where to report. */
export interface FigureContext {
  kind: string
  /** The service's environment for that database (DATABASE_URL, or DATA_DIR for the embedded one). */
  env: Record<string, string>
  dbUrl: () => string
  adminToken: string
  row: Row
  seconds: number
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
