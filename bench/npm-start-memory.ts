import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { IDLE_CONNECTION_MS } from '../src/db/database'
import { tempDataDir } from '../test/support/run-database'
import { freePort } from '../test/support/service-process'
import { load } from './load'
import { pss, serverPids, tree } from './memory'
import { type Row, fmt } from './report'

/**
 * The embedded default's memory as `npm start` runs it: the PSS of every process in its tree (npm
 * itself, the service, the PostgreSQL server's postmaster, helpers and the pool's backends), idle
 * after the first start, at the peak of a subscribe load (read midway and at its end: reading
 * smaps takes a process's memory-map lock, so it is not sampled on a timer), and idle again after it:
 * once the pool's unused connections have closed, as they do a little after any load.
 */

/**
 * npm's tree (npm, the service) and the embedded server's processes: the server is started by
 * pg_ctl, whose postmaster leaves the tree when pg_ctl exits.
 */
const startPss = (npm: number, dataDir: string) => [...tree(npm), ...serverPids(dataDir)].reduce((sum, pid) => sum + pss(pid), 0)
/** The same, split: npm's tree (npm and the service) and the server's processes, with how many backends it has. */
const split = (npm: number, dataDir: string) => {
  const server = serverPids(dataDir)
  const total = (pids: number[]) => fmt(pids.reduce((sum, pid) => sum + pss(pid), 0))
  return `npm and service ${total(tree(npm))}, server ${total(server)} (${server.length} processes)`
}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))
const QUERIED_TASKS = 10_000

export async function npmStartMemory(row: Row, seconds: number, adminToken: string): Promise<void> {
  const dataDir = tempDataDir()
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: adminToken, LOG_LEVEL: 'warn' }
  delete env.DATABASE_URL
  const npm = spawn('npm', ['start'], { env, stdio: 'ignore' })
  try {
    for (let i = 0; ; i++) {
      if (i > 600) throw new Error('npm start: no /healthz after 60 s')
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) break
      await pause(100)
    }
    await pause(2000)
    const idle = startPss(npm.pid!, dataDir)
    const created = await fetch(`${base}/admin/api-users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'memory' }),
    })
    const { token } = ((await created.json()) as { data: { token: string } }).data
    let peak = idle
    const sample = () => (peak = Math.max(peak, startPss(npm.pid!, dataDir)))
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    // First 10,000 tasks, queried at 50 connections: the service's heap and the pool's backends
    // as a day of reads leaves them, before the subscribes' peak.
    const ids: number[] = []
    for (let b = 0; b < QUERIED_TASKS / 100; b++) {
      const items = Array.from({ length: 100 }, (_, i) => ({
        carrierCode: 'FEDEX',
        trackingNumber: `MEMQ${b * 100 + i}`,
        callbackUrl: 'https://shop.example/hook',
      }))
      const res = await fetch(`${base}/openapi/tracking-subscriptions/batch`, { method: 'POST', headers: auth, body: JSON.stringify({ items }) })
      const answer = (await res.json()) as { data: { results: { taskId?: number | null }[] } }
      for (const result of answer.data.results) if (typeof result.taskId === 'number') ids.push(result.taskId)
    }
    if (ids.length !== QUERIED_TASKS) throw new Error(`npm start memory: ${ids.length} of ${QUERIED_TASKS} tasks subscribed`)
    await load({
      url: base,
      connections: 50,
      seconds,
      headers: auth,
      path: () => `/openapi/tracking-subscriptions?taskId=${ids[Math.floor(Math.random() * ids.length)]}`,
    })
    sample()
    const afterQueries = peak
    const afterQueriesSplit = split(npm.pid!, dataDir)
    const midway = setTimeout(sample, (seconds * 1000) / 2)
    let n = 0
    await load({
      url: `${base}/openapi/tracking-subscriptions`,
      method: 'POST',
      connections: 50,
      seconds,
      headers: auth,
      body: () => JSON.stringify({ carrierCode: 'FEDEX', trackingNumber: `MEM${++n}`, callbackUrl: 'https://shop.example/hook' }),
    })
    clearTimeout(midway)
    sample()
    await pause(IDLE_CONNECTION_MS + 5000)
    const after = startPss(npm.pid!, dataDir)
    const afterSplit = split(npm.pid!, dataDir)
    row('embedded', '`npm start`, every process of it (npm, service, server): PSS idle after the start', `${fmt(idle)} MiB`, '', '', '≤ 200 MiB')
    row(
      'embedded',
      `\`npm start\`, every process of it: PSS after ${fmt(QUERIED_TASKS)} tasks of queries (50 conn)`,
      `${fmt(afterQueries)} MiB: ${afterQueriesSplit}`,
      '',
      '',
      '',
    )
    row(
      'embedded',
      '`npm start`, every process of it: PSS at the peak of subscribe (after the queries) / idle after it',
      `${fmt(peak)} / ${fmt(after)} MiB (idle: ${afterSplit})`,
      '',
      '',
      '≤ 300 / ≤ 200 MiB',
    )
  } finally {
    npm.kill('SIGTERM')
    await new Promise((r) => npm.once('exit', r))
    rmSync(dataDir, { recursive: true, force: true })
  }
}
