import { CARRIER_CODES } from '../../src/carriers/registry'
import { validateSubscription } from '../../src/domain/subscription-input'
import { checkSubscription } from '../../src/http/schemas/subscription.schema'
import { CarrierCatalogService } from '../../src/services/carrier-catalog.service'
import { ENDPOINT_FIELDS, FIELDS, HOSTILE_VALUES, LIST_PARAMETERS, LOG_PARAMETERS, VALID_ENDPOINT } from './hostile-values'

/** The hostile-input corpus of test/faults/hostile-input.test.ts, generated. */

export const ADMIN_TOKEN = 'hostile-input-admin-token'

export interface HostileRequest {
  name: string
  method: string
  path: string
  headers?: Record<string, string>
  body?: string
  /** A read that a hostile value may still leave valid (an exact filter on any text): 200 is fine too. */
  mayAnswer?: true
}

const ALL_CARRIERS = new CarrierCatalogService(Object.fromEntries(CARRIER_CODES.map((code) => [code, 'simulator' as const])), {})
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

/**
 * The requests, against a user whose token, task and endpoint are given (the admin token is
 * ADMIN_TOKEN's): wrong types, sizes, unicode, control characters and injection strings in every
 * field and parameter, broken JSON, abused authentication.
 */
export function hostileCorpus({ token, taskId, endpointId }: { token: string; taskId: number; endpointId: number }): HostileRequest[] {
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
