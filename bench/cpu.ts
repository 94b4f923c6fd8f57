import { readdirSync, readFileSync } from 'node:fs'

/** CPU time of a process, in clock ticks (10 ms); 0 once it is gone. */
export const ticks = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0 // gone meanwhile
  }
}

/** CPU time of a process and of its children that have ended (their time is added to it when they are reaped), in clock ticks. */
const ticksWithEnded = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
  } catch {
    return 0 // gone meanwhile
  }
}

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
    .reduce((sum, p) => sum + ticksWithEnded(Number(p)), 0)
