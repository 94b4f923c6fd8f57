import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/database'
import { ERROR_CODES } from '../../src/domain/errors'
import { ADMIN_TOKEN, hostileCorpus, type HostileRequest } from '../support/hostile-corpus'
import { createRunDatabase, type RunDatabase } from '../support/run-database'
import { startService, type ServiceProcess } from '../support/service-process'

/**
 * A generated corpus of hostile requests against a real service process over HTTP: every answer
 * must be a 4xx envelope, none a 5xx, no row may be written, and the process must stay up.
 */

const REASONS: readonly string[] = ERROR_CODES

let run: RunDatabase
let service: ServiceProcess
let db: Database
let token: string
let taskId: number
let endpointId: number

beforeAll(async () => {
  run = await createRunDatabase()
  service = await startService({ ...run.env, ADMIN_TOKEN, RATE_LIMIT_PER_TOKEN: '0', RATE_LIMIT_PER_ADDRESS: '0' })
  db = await run.open()
  const user = await (
    await fetch(`${service.baseUrl}/admin/api-users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{"name":"target"}',
    })
  ).json()
  token = (user as { data: { token: string } }).data.token
  const sub = await fetch(`${service.baseUrl}/openapi/tracking-subscriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ carrierCode: 'FEDEX', trackingNumber: 'NFTARGET1', callbackUrl: 'https://a.example/' }),
  })
  taskId = ((await sub.json()) as { data: { taskId: number } }).data.taskId
  const endpoint = await fetch(`${service.baseUrl}/openapi/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://shop.example/events', eventTypes: ['tracking.status_changed'], description: 'kept as it is' }),
  })
  endpointId = ((await endpoint.json()) as { data: { endpointId: number } }).data.endpointId
})
afterAll(async () => {
  await db?.close()
  await service?.stop()
  await run?.close()
})

const BODY_LIMIT = 1024 * 1024

async function send(request: HostileRequest): Promise<{ status: number; body: string }> {
  // The service answers 413 before an oversized body is fully sent and closes the connection;
  // fetch then fails on its write (EPIPE) before reading the answer. Such requests go raw.
  if (request.body && Buffer.byteLength(request.body) > BODY_LIMIT) {
    const headers = Object.entries(request.headers ?? {})
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')
    return raw(
      `${request.method} ${request.path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headers}Content-Length: ${Buffer.byteLength(request.body)}\r\n\r\n${request.body}`,
    )
  }
  const res = await fetch(`${service.baseUrl}${request.path}`, { method: request.method, headers: request.headers, body: request.body })
  return { status: res.status, body: await res.text() }
}

/**
 * For what fetch will not send: oversized headers and bodies, broken HTTP. A server that answers
 * early and closes can make our write fail with a reset that also swallows its answer (seen for
 * oversized bodies and headers alike); then the request is sent again, up to ten times (the
 * process must still be up to answer). Three were not enough in CI with the crash suite running
 * beside it (EPIPE three times in a row, once).
 */
async function raw(payload: string): Promise<{ status: number; body: string }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await rawOnce(payload)
    } catch (error) {
      if (attempt === 10) throw error
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt))
    }
  }
}

function rawOnce(payload: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let data = ''
    // Written a piece at a time, stopping once an answer came: a server that answers early and
    // closes then leaves the answer readable instead of failing one large write.
    const socket = connect(service.port, '127.0.0.1', () => {
      void (async () => {
        const bytes = Buffer.from(payload)
        for (let i = 0; i < bytes.length && !data && !socket.destroyed; i += 4096) {
          if (!socket.write(bytes.subarray(i, i + 4096))) await new Promise((r) => socket.once('drain', r))
          await new Promise((r) => setImmediate(r))
        }
      })()
    })
    const answer = () => {
      const [head = '', ...rest] = data.split('\r\n\r\n')
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body: rest.join('\r\n\r\n') })
    }
    socket.on('data', (d) => (data += d))
    socket.on('end', answer)
    // A server that answers early and closes makes our write fail: the answer is what counts.
    socket.on('error', (error) => (data.startsWith('HTTP/1.1') ? answer() : reject(error)))
    setTimeout(() => socket.destroy(), 5000)
  })
}

async function rowCounts(): Promise<Record<string, number>> {
  const [row] = await db.query<Record<string, number>>(
    `SELECT (SELECT count(*)::int FROM api_users) AS users, (SELECT count(*)::int FROM api_tokens) AS tokens,
            (SELECT count(*)::int FROM tracking_tasks) AS tasks, (SELECT count(*)::int FROM deliveries) AS deliveries,
            (SELECT batch_max_items FROM settings) AS batch_max_items, (SELECT retention_days FROM settings) AS retention_days,
            (SELECT count(*)::int FROM tracking_tasks WHERE external_reference_no <> '' OR callback_url <> 'https://a.example/') AS changed_tasks,
            (SELECT count(*)::int FROM tracking_tasks WHERE stopped_at IS NOT NULL OR refresh_requested_at IS NOT NULL) AS stopped_or_refreshed,
            (SELECT count(*)::int FROM webhook_endpoints) AS endpoints,
            (SELECT count(*)::int FROM webhook_endpoints WHERE description <> 'kept as it is' OR NOT enabled OR previous_secret IS NOT NULL) AS changed_endpoints`,
  )
  return row!
}

describe('a hostile-input corpus', () => {
  it('gets a 4xx envelope for every request, no 5xx, no row written, and the process stays up', async () => {
    const requests = hostileCorpus({ token, taskId, endpointId })
    expect(requests.length).toBeGreaterThanOrEqual(1000)
    const before = await rowCounts()
    const failures: string[] = []
    const statuses = new Map<number, number>()
    const check = (name: string, res: { status: number; body: string }, mayAnswer = false) => {
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      let envelope: { code?: unknown; data?: { error?: unknown }; msg?: unknown } = {}
      try {
        envelope = JSON.parse(res.body)
      } catch {
        failures.push(`${name}: not JSON (${res.status}): ${res.body.slice(0, 80)}`)
        return
      }
      const answered = mayAnswer && res.status === 200 && envelope.code === 200 && envelope.msg === 'success'
      const ok =
        answered ||
        (res.status >= 400 &&
          res.status < 500 &&
          envelope.code === res.status &&
          REASONS.includes(String(envelope.data?.error)) &&
          typeof envelope.msg === 'string')
      if (!ok) failures.push(`${name}: ${res.status} ${res.body.slice(0, 120)}`)
    }
    // 16 at a time, as a busy client would.
    for (let i = 0; i < requests.length; i += 16) {
      const batch = requests.slice(i, i + 16)
      const results = await Promise.all(batch.map(send))
      results.forEach((res, j) => check(batch[j]!.name, res, batch[j]!.mayAnswer))
    }
    for (const [name, payload] of [
      [
        'headers over 16 KiB',
        `GET /openapi/tracking-subscriptions?taskId=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      ],
      ['many headers', `GET /healthz HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`],
      ['broken request line', 'GARBAGE\r\n\r\n'],
      ['bad header characters', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n`],
      ['bad content length', `POST /openapi/tracking-subscriptions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -5\r\n\r\n{}`],
    ] as const) {
      check(name, await raw(payload))
    }
    const total = [...statuses.values()].reduce((a, b) => a + b, 0)
    console.log(`hostile corpus: ${total} requests; statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
    expect(failures).toEqual([])
    expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([])
    expect(await rowCounts()).toEqual(before)
    const health = await fetch(`${service.baseUrl}/healthz`)
    expect(health.status).toBe(200)
    expect(service.process.exitCode).toBeNull()
  })
})
