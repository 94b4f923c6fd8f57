// @ts-check
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

/**
 * Runs PGlite in its own thread behind a Postgres-protocol socket on loopback. PGlite executes
 * queries synchronously in WebAssembly; in the API's thread a busy query loop starves timers and
 * HTTP for seconds. Here it only blocks this thread, and the app talks to it with `pg` exactly as
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
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections })
  await server.start()
  // @ts-expect-error the underlying net.Server is not part of the typed surface
  const address = server.server.address()
  if (!address || typeof address === 'string') throw new Error('the PGlite socket has no TCP address')

  channel?.on('message', async (message) => {
    if (message?.type !== 'stop') return
    await server.stop().catch(() => {})
    await db.close().catch(() => {})
    channel.postMessage({ type: 'stopped' })
  })
  channel?.postMessage({ type: 'ready', port: address.port })
}

main().catch((error) => {
  channel.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) })
})
