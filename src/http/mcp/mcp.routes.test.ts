import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Ajv2020 } from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../../test/support/test-app'

// The MCP server through the official MCP client over real HTTP on loopback.
let t: TestApp
let baseUrl: string
let token: string
const clients: Client[] = []
beforeAll(async () => {
  t = await createTestApp()
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' })
  token = (await t.createUser('agent')).token
})
afterAll(async () => {
  for (const client of clients) await client.close()
  await t.close()
})

async function connect(as: string, revision: 'legacy' | '2026-07-28' = 'legacy'): Promise<Client> {
  const client = new Client({ name: 'tracking-test', version: '1.0.0' }, revision === 'legacy' ? {} : { versionNegotiation: { mode: { pin: revision } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${as}` } } }))
  clients.push(client)
  return client
}

interface ToolAnswer {
  isError?: boolean
  structuredContent?: Record<string, unknown>
  content: { type: string; text?: string }[]
}
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolAnswer
/** A tool error's envelope, as the API answered it. */
const failure = (answer: ToolAnswer) => {
  expect(answer.isError).toBe(true)
  return JSON.parse(answer.content[0]!.text!) as { code: number; data: { error: string; details?: { field: string; message: string }[] }; msg: string }
}
const hook = 'https://shop.example/hook'

describe('POST /mcp', () => {
  it('offers one tool per operation, with honest annotations and self-contained schemas', async () => {
    const { tools } = await (await connect(token)).listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'track_parcel',
        'get_parcel',
        'list_parcels',
        'subscribe_parcels',
        'refresh_parcel',
        'stop_parcel',
        'delete_parcel',
        'detect_carrier',
        'list_carriers',
        'list_webhook_deliveries',
        'redeliver_webhook',
      ].sort(),
    )
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    const readOnly = tools.filter((tool) => tool.annotations?.readOnlyHint).map((tool) => tool.name)
    expect(readOnly.sort()).toEqual(['detect_carrier', 'get_parcel', 'list_carriers', 'list_parcels', 'list_webhook_deliveries'])
    expect(tools.filter((tool) => tool.annotations?.destructiveHint).map((tool) => tool.name)).toEqual(['delete_parcel'])
    expect(byName.get('track_parcel')!.inputSchema).toMatchObject({
      type: 'object',
      required: ['carrierCode', 'trackingNumber', 'callbackUrl'],
      properties: { carrierCode: { type: 'string' }, recipient: { anyOf: [{ $ref: '#/$defs/RecipientInput' }, { type: 'null' }] } },
    })
    expect(byName.get('get_parcel')!.inputSchema).toMatchObject({ type: 'object', required: ['taskId'], properties: { taskId: { type: 'integer' } } })
    // Every schema stands alone: a JSON Schema 2020-12 validator compiles it without the OpenAPI document.
    const ajv = new Ajv2020({ strict: false })
    addFormats(ajv)
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe('object')
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow()
      expect(() => ajv.compile(tool.outputSchema!), tool.name).not.toThrow()
    }
  })

  it('runs each operation for the caller, its structured answer as the tool declares it', async () => {
    const client = await connect(token)
    const { tools } = await client.listTools()
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats(ajv)
    const outputs = new Map(tools.map((tool) => [tool.name, ajv.compile(tool.outputSchema!)]))
    const ok = async (name: string, args: Record<string, unknown> = {}) => {
      const answer = await call(client, name, args)
      expect(answer.isError, `${name}: ${answer.content[0]?.text}`).toBeFalsy()
      const valid = outputs.get(name)!
      expect(valid(answer.structuredContent), `${name}: ${JSON.stringify(valid.errors)}`).toBe(true)
      expect(JSON.parse(answer.content[0]!.text!)).toEqual(answer.structuredContent)
      return answer.structuredContent as Record<string, unknown>
    }

    const tracked = await ok('track_parcel', {
      carrierCode: 'FEDEX',
      trackingNumber: '794843185271',
      callbackUrl: hook,
      recipient: { email: 'ann@example.com' },
    })
    const taskId = tracked.taskId as number
    expect(tracked).toMatchObject({ carrierCode: 'FEDEX', trackingNumber: '794843185271' })
    expect(await ok('get_parcel', { taskId })).toMatchObject({ taskId, recipient: { email: 'ann@example.com' } })
    expect(await ok('track_parcel', { carrierCode: 'FEDEX', trackingNumber: '794843185271', callbackUrl: hook })).toMatchObject({ taskId })

    const batch = await ok('subscribe_parcels', { items: [{ carrierCode: 'UPS', trackingNumber: '1Z5R89390357567127', callbackUrl: hook }] })
    expect((batch.results as { result: string }[]).map((r) => r.result)).toEqual(['created'])
    const page = await ok('list_parcels', { carrierCode: 'fedex', limit: 10 })
    expect((page.items as { taskId: number }[]).map((item) => item.taskId)).toEqual([taskId])
    expect(await ok('list_parcels', { milestone: 'pending,in_transit', sort: 'createdAt' })).toMatchObject({ nextCursor: null })

    expect(await ok('detect_carrier', { trackingNumber: '1Z5R89390357567127' })).toMatchObject({ candidates: [{ carrierCode: 'UPS', confidence: 'high' }] })
    expect((await ok('list_carriers')).carriers).toContainEqual(expect.objectContaining({ carrierCode: 'GLS' }))
    expect(await ok('refresh_parcel', { taskId })).toMatchObject({ taskId })
    expect(await ok('stop_parcel', { taskId })).toMatchObject({ taskId, active: false })
    expect(await ok('list_webhook_deliveries', { taskId })).toEqual({ deliveries: [] })
    expect(await ok('delete_parcel', { taskId })).toEqual({ taskId, deleted: true })
    expect(failure(await call(client, 'get_parcel', { taskId })).data.error).toBe('not_found')
  })

  it('serves a client of the 2026-07-28 revision (no initialize, the version in each request) as one of 2025', async () => {
    const modern = await connect(token, '2026-07-28')
    expect((await modern.listTools()).tools).toHaveLength(11)
    const answer = await call(modern, 'detect_carrier', { trackingNumber: '1Z5R89390357567127' })
    expect(answer.structuredContent).toMatchObject({ candidates: [{ carrierCode: 'UPS' }] })
    expect(failure(await call(modern, 'get_parcel', { taskId: 999_999 })).data.error).toBe('not_found')
  })

  it('answers a refused operation as a tool error carrying the API error', async () => {
    const client = await connect(token)
    const bad = failure(await call(client, 'track_parcel', { carrierCode: 'FEDEX', trackingNumber: '794843185271', callbackUrl: 'ftp://nope' }))
    expect(bad).toMatchObject({ code: 400, data: { error: 'validation_error', details: [{ field: 'callbackUrl' }] } })
    expect(failure(await call(client, 'track_parcel', { carrierCode: 'NOPE', trackingNumber: '794843185271', callbackUrl: hook })).data.error).toBe(
      'unsupported_carrier',
    )
    expect(failure(await call(client, 'get_parcel', {})).data).toEqual({ error: 'validation_error', details: [{ field: 'taskId', message: 'is required' }] })
    expect(failure(await call(client, 'get_parcel', { taskId: 'seven' })).data.error).toBe('validation_error')
    expect(failure(await call(client, 'list_parcels', { sort: 'sideways' })).data.error).toBe('validation_error')
    expect(failure(await call(client, 'redeliver_webhook', { taskId: 1, webhookId: 'msg_none' })).data.error).toBe('not_found')
  })

  it("keeps tenancy as the API does: another user's parcel is not found", async () => {
    const mine = await connect(token)
    const { taskId } = (await call(mine, 'track_parcel', { carrierCode: 'UPARCEL', trackingNumber: 'UP2411220001', callbackUrl: hook })).structuredContent!
    const stranger = await connect((await t.createUser('stranger')).token)
    for (const name of ['get_parcel', 'stop_parcel', 'refresh_parcel', 'delete_parcel', 'list_webhook_deliveries']) {
      expect(failure(await call(stranger, name, { taskId })).data.error, name).toBe('not_found')
    }
    expect((await call(stranger, 'list_parcels')).structuredContent).toEqual({ items: [], nextCursor: null })
    expect((await call(mine, 'get_parcel', { taskId })).structuredContent).toMatchObject({ taskId, active: true })
  })

  it('needs the API token', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    }
    for (const authorization of [undefined, 'Bearer not-a-token']) {
      const answer = await fetch(`${baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify(initialize),
      })
      expect(answer.status).toBe(401)
      expect(await answer.json()).toMatchObject({ code: 401, data: { error: 'unauthorized' } })
    }
    await expect(connect('not-a-token')).rejects.toThrow()
  })

  it('answers GET and DELETE 405: there is no session to stream or end', async () => {
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(`${baseUrl}/mcp`, { method, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } })
      expect(answer.status, method).toBe(405)
    }
  })

  it("counts each operation a tool runs against the caller's token, as over HTTP", async () => {
    const limited = await createTestApp({ database: t.database, rateLimits: { perTokenPerSecond: 1, perAddressPerSecond: 0 } })
    const limitedUrl = await limited.app.listen({ port: 0, host: '127.0.0.1' })
    const client = new Client({ name: 'tracking-test', version: '1.0.0' })
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${limitedUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
      // The bucket holds two seconds' worth: two calls pass, the third is refused with the API's error.
      const answers = [await call(client, 'list_carriers'), await call(client, 'list_carriers'), await call(client, 'list_carriers')]
      expect(answers.map((answer) => answer.isError ?? false)).toEqual([false, false, true])
      expect(failure(answers[2]!)).toMatchObject({ code: 429, data: { error: 'rate_limited' } })
    } finally {
      await client.close()
      await limited.close()
    }
  })

  it('is not served unless enabled', async () => {
    const off = await createTestApp({ mcp: false, database: t.database })
    try {
      const answer = await off.as(token, { method: 'POST', url: '/mcp', payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
      expect(answer.statusCode).toBe(404)
      expect((await off.app.inject({ method: 'GET', url: '/openapi.json' })).json().paths['/mcp']).toBeUndefined()
    } finally {
      await off.close()
    }
  })
})
