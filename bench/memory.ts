import { readFileSync } from 'node:fs'

/** Proportional set size in MiB (shared pages counted once across the processes that share them); 0 once gone. */
export const pss = (pid: number) => {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024
  } catch {
    return 0 // gone meanwhile (a backend whose connection closed)
  }
}
