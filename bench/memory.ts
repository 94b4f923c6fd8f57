import { readdirSync, readFileSync } from 'node:fs'

/** Proportional set size in MiB (shared pages counted once across the processes that share them); 0 once gone. */
export const pss = (pid: number) => {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024
  } catch {
    return 0 // gone meanwhile (a backend whose connection closed)
  }
}

/** The process and all of its descendants, from /proc. */
export function tree(root: number): number[] {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {
      // gone meanwhile
    }
  }
  const all: number[] = []
  const visit = (pid: number) => {
    all.push(pid)
    for (const child of children.get(pid) ?? []) visit(child)
  }
  visit(root)
  return all
}

/** The embedded server's processes: the postmaster and its children. */
export function serverPids(dataDir: string): number[] {
  return tree(Number(readFileSync(`${dataDir}/postgresql/postmaster.pid`, 'utf8').split('\n')[0]))
}
