// @ts-check
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'
import { startWireServer } from './wire-server.mjs'

/**
 * Runs PGlite in its own thread behind a Postgres-protocol socket on loopback (wire-server.mjs).
 * PGlite executes queries synchronously in WebAssembly; in the API's thread a busy query loop
 * starves timers and HTTP for seconds. Here it only blocks this thread, and the app talks to it with `pg` exactly as
 * it talks to PostgreSQL.
 *
 * Plain JavaScript on purpose: a worker thread's entry point is loaded before any TypeScript
 * loader registered with --import can hook it on Node 20.
 *
 * workerData: { dataPath: string (a directory, or "memory://"), maxConnections: number }
 * Messages out: { type: 'ready', port } | { type: 'failed', message } | { type: 'stopped' }
 * Messages in:  { type: 'stop' }
 */

const { dataPath, maxConnections } = workerData
const channel = parentPort
if (!channel) throw new Error('pglite.worker.mjs must run in a worker thread')

async function main() {
  const db = await PGlite.create(dataPath)
  const server = await startWireServer({ db, host: '127.0.0.1', port: 0, maxConnections })

  channel?.on('message', async (message) => {
    if (message?.type !== 'stop') return
    await server.stop().catch(() => {})
    await db.close().catch(() => {})
    channel.postMessage({ type: 'stopped' })
  })
  channel?.postMessage({ type: 'ready', port: server.port })
}

main().catch((error) => {
  channel.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) })
})
