/** How the bench's figure modules report: one row of the printed table, numbers as people read them. */

export type Row = (db: string, figure: string, value: string, ceiling: string, ratio: string, target: string) => void

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
