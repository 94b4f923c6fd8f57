import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

/** Real service processes for tests that need them: `npm start`'s entry point, the CLI, migrate. */

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
// One process per service, started as `npm start` starts it (src/main/launch.mjs, which runs an
// entry point in its own process), so that signals and pids are its own. PROF_DIR=dir writes a
// CPU profile of every service started (how the bench's hot spots were found).
const LAUNCH = 'src/main/launch.mjs'
/** The node options `npm start` gives the launcher, read off package.json's start script. */
const START_OPTIONS = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(' ')
  .filter((word) => word.startsWith('--'))
const NODE_ARGS = [...START_OPTIONS, ...(process.env.PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.PROF_DIR] : [])]

export interface ServiceProcess {
  port: number
  baseUrl: string
  process: ChildProcess
  output(): string
  /** Sends a signal and waits for the exit; resolves to the exit code (or the signal name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>
}

/**
 * A port for a child process to listen on, chosen outside the kernel's ephemeral range. A port
 * from listen(0) is handed out again by the next listen(0) once closed: a service whose built-in
 * simulator listened on port 0 was given the very port the test had picked for it, and failed to
 * start with EADDRINUSE (CI, server.test.ts). Below the range, no port-0 listener can take it.
 */
export async function freePort(): Promise<number> {
  const low = lowestEphemeralPort()
  for (let tries = 0; tries < 50; tries++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000))
    if (await canListen(port)) return port
  }
  throw new Error('no free port below the ephemeral range')
}

function lowestEphemeralPort(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    if (low > 11_000) return low
  } catch {
    // not Linux: its default range
  }
  return 32_768
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** The environment for a child: ours without DATABASE_URL, plus `env`. */
function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: undefined }
  for (const [k, v] of Object.entries(env)) base[k] = v
  for (const k of Object.keys(base)) if (base[k] === undefined) delete base[k]
  return base
}

export function exitOf(child: ChildProcess): Promise<number | string> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode ?? child.signalCode!)
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1))
  })
}

/** Starts `npm start`'s entry point and resolves once /healthz answers 200 (looked at every `pollMs`). */
export async function startService(env: Record<string, string | undefined>, timeoutMs = 60_000, pollMs = 100): Promise<ServiceProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, [...NODE_ARGS, LAUNCH], { cwd: ROOT, env: childEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }) })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const baseUrl = `http://127.0.0.1:${port}`
  const started = Date.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}: ${output}`)
    try {
      const res = await fetch(`${baseUrl}/healthz`)
      if (res.ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs) {
      child.kill('SIGKILL')
      throw new Error(`the service did not start in time: ${output}`)
    }
    await new Promise((r) => setTimeout(r, pollMs))
  }
  return {
    port,
    baseUrl,
    process: child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      const exited = exitOf(child)
      child.kill(signal)
      return exited
    },
  }
}

export interface RunResult {
  code: number | string
  stdout: string
  stderr: string
}

/** Runs an entry point (src/main/admin.ts, src/main/server.ts, ...) to completion. */
export async function runEntry(entry: string, args: string[], env: Record<string, string | undefined>, timeoutMs = 60_000): Promise<RunResult> {
  const child = spawn(process.execPath, [...NODE_ARGS, LAUNCH, entry, ...args], { cwd: ROOT, env: childEnv(env) })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => (stdout += d))
  child.stderr!.on('data', (d) => (stderr += d))
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const code = await exitOf(child)
  clearTimeout(timer)
  return { code, stdout, stderr }
}
