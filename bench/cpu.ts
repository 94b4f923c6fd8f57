import { readdirSync, readFileSync } from 'node:fs'

/** A process's CPU times in clock ticks (10 ms): its own, and its ended children's (added to it when it reaps them); undefined once it is gone. */
function cpuTimes(pid: number): { own: number; endedChildren: number } | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return { own: Number(fields[11]) + Number(fields[12]), endedChildren: Number(fields[13]) + Number(fields[14]) }
  } catch {
    return undefined // gone meanwhile
  }
}

/** CPU time of a process, in clock ticks (10 ms); 0 once it is gone. */
export const ticks = (pid: number) => cpuTimes(pid)?.own ?? 0

/**
 * CPU time of every postgres process of the machine, in clock ticks: run on a quiet machine. A
 * backend that ends (the pool replaces its connections at 30 s of age) takes its time with it,
 * and the postmaster that reaps it gains it: counted with each process's ended children, the sum
 * only grows.
 */
export const postgresTicks = () =>
  readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/comm`, 'utf8').startsWith('postgres')
      } catch {
        return false
      }
    })
    .reduce((sum, p) => {
      const times = cpuTimes(Number(p))
      return sum + (times ? times.own + times.endedChildren : 0)
    }, 0)
