import { CARRIER_CODES } from '../../src/carriers/registry'
import { CarrierCatalogService } from '../../src/services/carrier-catalog.service'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/database'
import { ERROR_CODES } from '../../src/domain/errors'
import { validateSubscription } from '../../src/domain/subscription-input'
import { checkSubscription } from '../../src/http/schemas/subscription.schema'
import { createRunDatabase, type RunDatabase } from '../support/run-database'
import { startService, type ServiceProcess } from '../support/service-process'

/**
 * A generated corpus of hostile requests against a real service process over HTTP: every answer
 * must be a 4xx envelope, none a 5xx, no row may be written, and the process must stay up.
 */

const ADMIN_TOKEN = 'hostile-input-admin-token'
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

interface HostileRequest {
  name: string
  method: string
  path: string
  headers?: Record<string, string>
  body?: string
  /** A read that a hostile value may still leave valid (an exact filter on any text): 200 is fine too. */
  mayAnswer?: true
}

const HOSTILE_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  true,
  [],
  ['FEDEX'],
  {},
  { $ne: null },
  '',
  ' ',
  'A'.repeat(10_240),
  'B'.repeat(200_000),
  '😀'.repeat(65),
  '\u202eRTL\u202c',
  'zero\u200bwidth',
  '\u0000',
  'a\u0001b\u001fc',
  '\u007f\u0085\u009f',
  '\ud800',
  '\udfff\ud800',
  "' OR '1'='1' --",
  '1; DROP TABLE tracking_tasks; --',
  '"; SELECT pg_sleep(10); --',
  '<script>alert(1)</script>',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '../../../../etc/passwd',
  '%00%0d%0aSet-Cookie: x=1',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'http://',
  'https://exa mple.com/',
  'http://[::1',
  'ftp://a.example/',
  '\\\\server\\share',
]
const FIELDS = ['carrierCode', 'trackingNumber', 'callbackUrl', 'externalReferenceNo']
const LIST_PARAMETERS = [
  'standardStatus',
  'carrierCode',
  'trackingNumber',
  'externalReferenceNo',
  'active',
  'createdFrom',
  'createdTo',
  'updatedFrom',
  'updatedTo',
  'sort',
  'limit',
  'cursor',
  'include',
]
const ENDPOINT_FIELDS = ['url', 'eventTypes', 'description', 'carrierCodes', 'milestones', 'enabled']
const LOG_PARAMETERS = ['status', 'eventType', 'endpointId', 'taskId', 'createdFrom', 'createdTo', 'limit', 'cursor']
const VALID_ENDPOINT = { url: 'https://shop.example/events', eventTypes: ['tracking.deleted'] }
// The carriers of the registry, all served by the simulator as in the suite's service.
const ALL_CARRIERS = new CarrierCatalogService(Object.fromEntries(CARRIER_CODES.map((code) => [code, 'simulator' as const])))
const VALID = { carrierCode: 'FEDEX', trackingNumber: 'HOSTILE1', callbackUrl: 'https://shop.example/hook', externalReferenceNo: 'ref' }

/** A subscription as the service judges it: its schema's check, then the domain's rules. */
const judged = (body: unknown) => validateSubscription({ body, refused: checkSubscription(body) }, ALL_CARRIERS.resolve)

/** The body with `value` in `field`, made invalid elsewhere if the value alone is acceptable. */
function rejectedBody(field: string, value: unknown): Record<string, unknown> {
  const body: Record<string, unknown> = { ...VALID, [field]: value }
  if (judged(body).ok) body[field === 'trackingNumber' ? 'callbackUrl' : 'trackingNumber'] = field === 'trackingNumber' ? 'not a url' : 'has space'
  return body
}

/** encodeURIComponent that sends a lone surrogate as the invalid UTF-8 it would be. */
function enc(text: string): string {
  try {
    return encodeURIComponent(text)
  } catch {
    return `${encodeURIComponent(text.toWellFormed())}%ED%A0%80`
  }
}

function corpus(): HostileRequest[] {
  const requests: HostileRequest[] = []
  const json = { 'content-type': 'application/json' }
  const auth = () => ({ authorization: `Bearer ${token}` })
  const subscribe = '/openapi/tracking-subscriptions'

  // Wrong types, sizes, unicode, control characters and injection strings, in every field, on
  // single subscribe and as the whole of a batch's items.
  for (const field of FIELDS) {
    for (const value of HOSTILE_VALUES) {
      const body = JSON.stringify(rejectedBody(field, value))
      requests.push({ name: `subscribe ${field}=${String(value).slice(0, 20)}`, method: 'POST', path: subscribe, headers: { ...json, ...auth() }, body })
      requests.push({
        name: `subscribe (absent field) ${field}`,
        method: 'POST',
        path: subscribe,
        headers: { ...json, ...auth() },
        body: JSON.stringify({ ...VALID, [field]: undefined, trackingNumber: field === 'trackingNumber' ? undefined : 'x y' }),
      })
      requests.push({
        name: `subscribe utf-8 ${field}=${String(value).slice(0, 20)}`,
        method: 'POST',
        path: subscribe,
        headers: { 'content-type': 'application/json; charset=utf-8', ...auth() },
        body,
      })
      // The same hostile item inside a batch that is too large as a whole.
      requests.push({
        name: `batch of 101 with ${field}`,
        method: 'POST',
        path: `${subscribe}/batch`,
        headers: { ...json, ...auth() },
        body: JSON.stringify({ items: Array.from({ length: 101 }, () => rejectedBody(field, value)) }),
      })
      for (const other of FIELDS.filter((f) => f > field)) {
        const both = { ...rejectedBody(field, value), [other]: value }
        if (judged(both).ok) both.trackingNumber = 'has space'
        requests.push({
          name: `subscribe ${field}+${other}=${String(value).slice(0, 20)}`,
          method: 'POST',
          path: subscribe,
          headers: { ...json, ...auth() },
          body: JSON.stringify(both),
        })
      }
    }
  }
  for (const value of HOSTILE_VALUES) {
    requests.push({
      name: `batch items=${String(value).slice(0, 20)}`,
      method: 'POST',
      path: `${subscribe}/batch`,
      headers: { ...json, ...auth() },
      body: JSON.stringify({ items: Array.isArray(value) && value.length ? 'x' : value }),
    })
    requests.push({
      name: `query taskId=${String(value).slice(0, 20)}`,
      method: 'GET',
      path: `${subscribe}?taskId=${enc(String(value) || 'x')}&trackingNumber=X`,
      headers: auth(),
    })
    requests.push({
      name: `query trackingNumber=${String(value).slice(0, 20)}`,
      method: 'GET',
      path: `${subscribe}?trackingNumber=${enc(typeof value === 'string' && value.trim() ? `${value} x` : ' ')}`,
      headers: auth(),
    })
    requests.push({
      name: `history of ${String(value).slice(0, 20)}`,
      method: 'GET',
      path: `${subscribe}/${enc(String(value).slice(0, 100) || '-')}/webhooks`,
      headers: auth(),
    })
    requests.push({
      name: `redeliver ${String(value).slice(0, 20)}`,
      method: 'POST',
      path: `${subscribe}/${taskId}/webhooks/${enc(String(value).slice(0, 100) || '-')}/redeliver`,
      headers: auth(),
    })
    requests.push({
      name: `admin user name ${String(value).slice(0, 20)}`,
      method: 'POST',
      path: '/admin/api-users',
      headers: { ...json, authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({
        name: typeof value === 'string' && value.trim() && !/[\p{Cc}\p{Cf}]/u.test(value) && value.isWellFormed() ? value.repeat(200) : value,
      }),
    })
    requests.push({
      name: `admin settings ${String(value).slice(0, 20)}`,
      method: 'PATCH',
      path: '/admin/settings',
      headers: { ...json, authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ batchMaxItems: typeof value === 'number' && Number.isInteger(value) ? 0 : value }),
    })
    requests.push({
      name: `admin retentionDays ${String(value).slice(0, 20)}`,
      method: 'PATCH',
      path: '/admin/settings',
      headers: { ...json, authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ retentionDays: typeof value === 'number' && Number.isInteger(value) ? -1 : value }),
    })
    // The task's life: hostile ids on every route that names a task (none of them a valid id).
    const id = enc(String(value).slice(0, 100) || '-')
    requests.push({ name: `full task ${String(value).slice(0, 20)}`, method: 'GET', path: `${subscribe}/${id}`, headers: auth() })
    requests.push({ name: `stop ${String(value).slice(0, 20)}`, method: 'POST', path: `${subscribe}/${id}/stop`, headers: auth() })
    requests.push({ name: `refresh ${String(value).slice(0, 20)}`, method: 'POST', path: `${subscribe}/${id}/refresh`, headers: auth() })
    requests.push({ name: `delete ${String(value).slice(0, 20)}`, method: 'DELETE', path: `${subscribe}/${id}`, headers: auth() })
    // Endpoints: every field of a create and a patch (made invalid elsewhere when the value alone
    // is acceptable), hostile ids on every endpoint route, every log parameter, the replay's body.
    const endpoints = '/openapi/webhook-endpoints'
    for (const field of ENDPOINT_FIELDS) {
      const body = { ...VALID_ENDPOINT, [field]: value, ...(field === 'url' ? { eventTypes: 'all' } : { url: 'not a url' }) }
      requests.push({
        name: `endpoint ${field}=${String(value).slice(0, 20)}`,
        method: 'POST',
        path: endpoints,
        headers: { ...json, ...auth() },
        body: JSON.stringify(body),
      })
      requests.push({
        name: `endpoint patch ${field}=${String(value).slice(0, 20)}`,
        method: 'PATCH',
        path: `${endpoints}/${endpointId}`,
        headers: { ...json, ...auth() },
        body: JSON.stringify({ [field]: value, ...(field === 'url' ? { enabled: 'no' } : { url: 'not a url' }) }),
      })
    }
    for (const [method, suffix] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/test'],
      ['POST', '/secret/rotate'],
    ] as const) {
      requests.push({
        name: `endpoint ${method}${suffix} ${String(value).slice(0, 20)}`,
        method,
        path: `${endpoints}/${id}${suffix}`,
        headers: { ...json, ...auth() },
        ...(method === 'PATCH' ? { body: '{"enabled": false}' } : {}),
      })
    }
    for (const param of LOG_PARAMETERS) {
      requests.push({
        name: `log ${param}=${String(value).slice(0, 20)}`,
        method: 'GET',
        path: `/openapi/webhook-deliveries?${param}=${enc(String(value))}`,
        headers: auth(),
      })
    }
    const window = { status: 'failed', createdFrom: '2026-01-01T00:00:00Z', createdTo: '2026-01-02T00:00:00Z' }
    for (const field of ['status', 'createdFrom', 'createdTo', 'endpointId']) {
      const body = { ...window, [field]: value, ...(field === 'status' ? {} : { status: 'success' }) }
      requests.push({
        name: `replay ${field}=${String(value).slice(0, 20)}`,
        method: 'POST',
        path: '/openapi/webhook-deliveries/redeliver',
        headers: { ...json, ...auth() },
        body: JSON.stringify(body),
      })
    }
    // Detection and AUTO: a hostile number is a 4xx, or for a well-formed one, an answer (no 5xx).
    requests.push({
      name: `detect ${String(value).slice(0, 20)}`,
      method: 'GET',
      path: `/openapi/carriers/detect?trackingNumber=${enc(String(value))}`,
      headers: auth(),
      mayAnswer: true,
    })
    requests.push({
      name: `AUTO subscribe ${String(value).slice(0, 20)}`,
      method: 'POST',
      path: subscribe,
      headers: { ...json, ...auth() },
      body: JSON.stringify({ ...VALID, carrierCode: 'AUTO', trackingNumber: value }),
    })
    // Every list parameter, alone: a 4xx, or for an exact filter on text, a valid (empty) page.
    for (const param of LIST_PARAMETERS) {
      requests.push({
        name: `list ${param}=${String(value).slice(0, 20)}`,
        method: 'GET',
        path: `${subscribe}/list?${param}=${enc(String(value))}`,
        headers: auth(),
        mayAnswer: true,
      })
    }
  }

  // Batch envelopes that are wrong as a whole.
  for (const body of [
    '{}',
    '[]',
    '{"items": []}',
    JSON.stringify({ items: Array.from({ length: 101 }, () => VALID) }),
    '{"items": {"0": {}}}',
    '{"items": null}',
    'null',
    '"items"',
    '42',
  ]) {
    requests.push({ name: `batch ${body.slice(0, 30)}`, method: 'POST', path: `${subscribe}/batch`, headers: { ...json, ...auth() }, body })
  }

  // Malformed JSON.
  const malformed = [
    '{',
    '{"carrierCode": "FEDEX",',
    '[1, 2',
    'nul',
    '{"carrierCode": "FEDEX",}',
    "{'carrierCode': 'FEDEX'}",
    '{"a": 01}',
    '{"a": NaN}',
    '{"a": Infinity}',
    '\u0000',
    '\ufeff{}x',
    '{"a":"\\x41"}',
    '{"__proto__": {"admin": true}}',
    '{"constructor": {"prototype": {"admin": true}}}',
    '['.repeat(50_000) + ']'.repeat(50_000),
    '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000),
    'x'.repeat(1024 * 1024 + 10),
  ]
  for (const path of [subscribe, `${subscribe}/batch`, '/admin/api-users']) {
    for (const body of malformed) {
      requests.push({
        name: `malformed ${body.slice(0, 20)} → ${path}`,
        method: 'POST',
        path,
        headers: { ...json, authorization: `Bearer ${path.startsWith('/admin') ? ADMIN_TOKEN : token}` },
        body,
      })
    }
  }

  // Wrong methods, unknown paths, path tricks.
  for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
    for (const path of [subscribe, `${subscribe}/batch`, `${subscribe}/${taskId}/webhooks`, '/admin/api-users/1/tokens/1/x'])
      requests.push({ name: `${method} ${path}`, method, path, headers: auth() })
  }
  for (const path of [
    '/openapi',
    '/openapi/',
    '/openapi/tracking-subscriptions/../../admin/settings',
    '/openapi/tracking-subscriptions/%00/webhooks',
    '/openapi/tracking-subscriptions/99999999999999999999999999/webhooks',
    `/openapi/${'a/'.repeat(2000)}`,
    '/%2e%2e/%2e%2e/etc/passwd',
    '/admin',
    '/admin/api-users/0/tokens',
    '/admin/api-users/-1/webhook-secret/rotate',
  ]) {
    requests.push({ name: `path ${path.slice(0, 40)}`, method: 'GET', path, headers: auth() })
  }

  // Content types.
  for (const type of [
    'text/plain',
    'application/xml',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded',
    'application/jsonp',
    'image/png',
    '',
  ]) {
    requests.push({
      name: `content-type ${type}`,
      method: 'POST',
      path: subscribe,
      headers: { ...(type ? { 'content-type': type } : {}), ...auth() },
      body: JSON.stringify(VALID),
    })
  }

  // Repeated and abusive query parameters.
  requests.push({ name: 'taskId × 1000', method: 'GET', path: `${subscribe}?${'taskId=1&'.repeat(1000)}`, headers: auth() })
  requests.push({ name: 'trackingNumber × 500', method: 'GET', path: `${subscribe}?${'trackingNumber=A&'.repeat(500)}`, headers: auth() })
  requests.push({ name: 'taskId[]', method: 'GET', path: `${subscribe}?taskId[]=1`, headers: auth() })
  requests.push({ name: 'taskId[a]', method: 'GET', path: `${subscribe}?taskId[a]=1`, headers: auth() })
  requests.push({
    name: '5000 distinct params',
    method: 'GET',
    path: `${subscribe}?${Array.from({ length: 1500 }, (_, i) => `p${i}=${i}`).join('&')}`,
    headers: auth(),
  })
  for (const qs of [
    'taskId=0x10',
    'taskId=1e2',
    'taskId=%201',
    'taskId=1%00',
    'taskId=١٢٣',
    'taskId=+1',
    'trackingNumber=%E0%A4%A',
    'trackingNumber=%FF%FE',
    '',
  ]) {
    requests.push({ name: `query ${qs}`, method: 'GET', path: `${subscribe}?${qs}`, headers: auth() })
  }

  // Authentication abuse: every request without a valid token is refused before anything else.
  for (const authorization of [
    '',
    'Bearer',
    'Bearer ',
    `Bearer ${'x'.repeat(600)}`,
    `Bearer ${token}x`,
    `bearer  ${token.slice(0, -1)}`,
    `Basic ${Buffer.from('a:b').toString('base64')}`,
    `Bearer ${ADMIN_TOKEN}`,
    'Bearer trk_\u00e9',
  ]) {
    requests.push({
      name: `auth ${authorization.slice(0, 20)}`,
      method: 'POST',
      path: subscribe,
      headers: { ...json, ...(authorization ? { authorization: Buffer.from(authorization, 'latin1').toString('latin1') } : {}) },
      body: JSON.stringify(VALID),
    })
    if (!authorization.includes(ADMIN_TOKEN))
      requests.push({
        name: `admin auth ${authorization.slice(0, 20)}`,
        method: 'GET',
        path: '/admin/settings',
        headers: authorization ? { authorization } : {},
      })
  }
  return requests
}

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
    const requests = corpus()
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
