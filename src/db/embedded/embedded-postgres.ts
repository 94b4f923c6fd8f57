import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { DataDirLock } from './data-dir-lock'

type WorkerMessage = { type: 'ready'; port: number } | { type: 'failed'; message: string } | { type: 'stopped' }

export interface EmbeddedPostgres {
  /** A `pg` connection string to the worker's socket on loopback. */
  connectionString: string
  port: number
  stop(): Promise<void>
}

export interface EmbeddedOptions {
  /** The data directory; undefined runs a throw-away in-memory database (tests). */
  dataDir: string | undefined
  maxConnections: number
}

const START_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 10_000

export function connectionStringForPort(port: number): string {
  return `postgresql://postgres@127.0.0.1:${port}/postgres?sslmode=disable`
}

/**
 * Starts PGlite in a worker thread (see pglite.worker.ts) on a data directory guarded by a lock.
 * Throws DataDirLockedError when another live process holds the directory.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const lock = options.dataDir === undefined ? undefined : DataDirLock.acquire(options.dataDir)
  const dataPath = options.dataDir === undefined ? 'memory://' : join(options.dataDir, 'pgdata')
  const worker = new Worker(new URL('./pglite.worker.mjs', import.meta.url), {
    workerData: { dataPath, maxConnections: options.maxConnections },
    // Only the worker's own plain JavaScript runs there: no TypeScript loader needed.
    execArgv: [],
  })

  let port: number
  try {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the embedded database did not start in time')), START_TIMEOUT_MS)
      worker.once('error', (error) => {
        clearTimeout(timer)
        reject(error)
      })
      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          clearTimeout(timer)
          resolve(message.port)
        } else if (message.type === 'failed') {
          clearTimeout(timer)
          reject(new Error(`the embedded database failed to start: ${message.message}`))
        }
      })
    })
  } catch (error) {
    await worker.terminate()
    lock?.release()
    throw error
  }
  lock?.publishPort(port)
  // The worker must not keep a process alive that has nothing else to do.
  worker.unref()

  let stopped = false
  return {
    connectionString: connectionStringForPort(port),
    port,
    async stop() {
      if (stopped) return
      stopped = true
      // Let PGlite close cleanly (it flushes its files); terminate only if it hangs.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, STOP_TIMEOUT_MS)
        worker.on('message', (message: WorkerMessage) => {
          if (message.type === 'stopped') {
            clearTimeout(timer)
            resolve()
          }
        })
        worker.once('exit', () => {
          clearTimeout(timer)
          resolve()
        })
        worker.postMessage({ type: 'stop' })
      })
      await worker.terminate()
      lock?.release()
    },
  }
}
