import createClient from 'openapi-fetch'
// Generated from the service's own /openapi.json by `npm run check:openapi` (openapi-typescript).
import type { paths } from '../../.tmp/api'

/**
 * A client generated from the OpenAPI document, calling every operation: `npm run check:openapi`
 * typechecks it in strict mode against freshly generated types (a document that generates a weak
 * or wrong client fails there), and client.test.ts runs it against the service.
 */
export interface Credentials {
  baseUrl: string
  token: string
  adminToken: string
}

/** What each operation answered, by operationId. */
export type Outcomes = Record<string, number>

/** An answer as it came over the wire, with the operation's place in the document. */
export interface Exchange {
  /** The document's path template (/openapi/tracking-subscriptions/{taskId}). */
  schemaPath: string
  method: string
  status: number
  contentType: string
  body: string
}

export async function callEveryOperation({ baseUrl, token, adminToken }: Credentials): Promise<{ outcomes: Outcomes; exchanges: Exchange[] }> {
  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } })
  const admin = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${adminToken}` } })
  const open = createClient<paths>({ baseUrl })
  const exchanges: Exchange[] = []
  const recorder = {
    async onResponse({ request, response, schemaPath }: { request: Request; response: Response; schemaPath: string }) {
      const body = await response.clone().text()
      exchanges.push({
        schemaPath,
        method: request.method.toLowerCase(),
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        body,
      })
    },
  }
  for (const client of [api, admin, open]) client.use(recorder)
  const outcomes: Outcomes = {}
  const note = (operationId: string, response: Response) => (outcomes[operationId] = response.status)

  note('healthz', (await open.GET('/healthz')).response)
  note('readyz', (await open.GET('/readyz')).response)

  const subscribed = await api.POST('/openapi/tracking-subscriptions', {
    body: { carrierCode: 'FEDEX', trackingNumber: `CLIENT${Date.now()}`, callbackUrl: 'https://shop.example/hook', externalReferenceNo: 'order-1' },
  })
  note('subscribe', subscribed.response)
  const taskId: number = subscribed.data?.data.taskId ?? 0
  const batch = await api.POST('/openapi/tracking-subscriptions/batch', {
    body: { items: [{ carrierCode: 'UPARCEL', trackingNumber: `CLIENTB${Date.now()}`, callbackUrl: 'https://shop.example/hook' }] },
  })
  note('subscribeBatch', batch.response)
  const results: string[] = batch.data?.data.results.map((r) => r.result) ?? []
  void results
  const imported = await api.POST('/openapi/tracking-subscriptions/import', {
    headers: { 'content-type': 'text/csv' },
    body: 'carrierCode,trackingNumber,callbackUrl\nFEDEX,CSVCLIENT1,https://shop.example/hook\n',
    bodySerializer: (body: string) => body,
  })
  note('importSubscriptions', imported.response)
  const lines: number[] = imported.data?.data.results.map((r) => r.line) ?? []
  void lines
  note(
    'exportSubscriptions',
    (await api.GET('/openapi/tracking-subscriptions/export', { params: { query: { carrierCode: 'FEDEX' } }, parseAs: 'text' })).response,
  )

  const carriers = await api.GET('/openapi/carriers')
  note('listCarriers', carriers.response)
  const tools = { jsonrpc: '2.0' as const, id: 1, method: 'tools/list' }
  const mcpAccept = { accept: 'application/json, text/event-stream' }
  note('mcp', (await api.POST('/mcp', { body: tools, headers: mcpAccept, parseAs: 'text' })).response)
  await open.POST('/mcp', { body: tools, headers: mcpAccept, parseAs: 'text' })
  const available: boolean | undefined = carriers.data?.data.carriers[0]?.available
  void available
  const detected = await api.GET('/openapi/carriers/detect', { params: { query: { trackingNumber: '1Z5R89390357567127' } } })
  note('detectCarrier', detected.response)
  const confidence: 'high' | 'medium' | 'low' | undefined = detected.data?.data.candidates[0]?.confidence
  void confidence

  const found = await api.GET('/openapi/tracking-subscriptions', { params: { query: { taskId } } })
  note('getSubscription', found.response)
  const status: 'pending' | 'in_transit' | 'exception' | 'delivered' | 'returned' | 'cancelled' | 'expired' | undefined = found.data?.data.standardStatus
  void status

  const full = await api.GET('/openapi/tracking-subscriptions/{taskId}', { params: { path: { taskId } } })
  note('getTask', full.response)
  const active: boolean | undefined = full.data?.data.active
  void active
  const basis: 'states' | 'countries' | 'carrier' | undefined = full.data?.data.prediction?.basis
  void basis
  const pageUrl: string = full.data?.data.trackingPageUrl ?? 'http://127.0.0.1/t/none'
  const branded = await api.PUT('/openapi/tracking-page', {
    body: {
      displayName: 'Client shop',
      logoUrl: null,
      accentColor: '#0b5cad',
      supportUrl: 'https://shop.example/help',
      supportEmail: null,
      showReference: false,
      defaultLanguage: 'de',
    },
  })
  note('putTrackingPageBrand', branded.response)
  note('getTrackingPageBrand', (await api.GET('/openapi/tracking-page')).response)
  const shown = await open.GET('/t/{token}', {
    params: { path: { token: new URL(pageUrl).pathname.split('/').at(-1)! } },
    headers: { accept: 'application/json' },
  })
  note('trackingPage', shown.response)
  const language: 'en' | 'de' | 'fr' | 'es' | undefined = shown.data?.data.language
  void language
  // The page as a browser gets it, and an unknown token's 404 in both forms.
  const pageToken = new URL(pageUrl).pathname.split('/').at(-1)!
  await open.GET('/t/{token}', { params: { path: { token: pageToken } }, headers: { accept: 'text/html' }, parseAs: 'text' })
  await open.GET('/t/{token}', { params: { path: { token: 'no-such-page' } }, headers: { accept: 'text/html' }, parseAs: 'text' })
  await open.GET('/t/{token}', { params: { path: { token: 'no-such-page' } }, headers: { accept: 'application/json' } })
  const rotated = await api.POST('/openapi/tracking-subscriptions/{taskId}/tracking-page/rotate', { params: { path: { taskId } } })
  note('rotateTrackingPage', rotated.response)
  const newPage: string | undefined = rotated.data?.data.trackingPageUrl
  void newPage
  const transit = await api.GET('/openapi/analytics/transit-times', {
    params: { query: { groupBy: 'carrier', deliveredFrom: '2026-01-01', deliveredTo: '2026-12-31' } },
  })
  note('transitTimes', transit.response)
  const onTime: number | null | undefined = transit.data?.data.lanes[0]?.onTimeRate
  void onTime
  const page = await api.GET('/openapi/tracking-subscriptions/list', {
    params: { query: { standardStatus: 'pending,in_transit', sort: '-updatedAt', limit: 10, include: 'events' } },
  })
  note('listTasks', page.response)
  const nextCursor: string | null | undefined = page.data?.data.nextCursor
  void nextCursor
  note('stopTask', (await api.POST('/openapi/tracking-subscriptions/{taskId}/stop', { params: { path: { taskId } } })).response)
  const refreshed = await api.POST('/openapi/tracking-subscriptions/{taskId}/refresh', { params: { path: { taskId } } })
  note('refreshTask', refreshed.response)
  const nextCheckAt: string | undefined = refreshed.data?.data.nextCheckAt
  void nextCheckAt
  const moved = await api.PATCH('/openapi/tracking-subscriptions/{taskId}', { params: { path: { taskId } }, body: { carrierCode: 'UPS' } })
  note('changeTaskCarrier', moved.response)
  const changes: { previousCarrierCode: string; reason: 'user' | 'auto_correct' }[] | undefined = moved.data?.data.carrierChanges
  void changes
  const own = await api.PUT('/openapi/settings', { body: { carrierAutoCorrect: true, carrierAutoCorrectHours: 0.5 } })
  note('putAccountSettings', own.response)
  const effective: boolean | undefined = own.data?.data.effective.carrierAutoCorrect
  void effective
  note('getAccountSettings', (await api.GET('/openapi/settings')).response)
  const notifications = await api.PUT('/openapi/notifications', {
    body: { email: { enabled: true, triggers: ['delivered'], fromName: 'Client shop', replyTo: null }, sms: { enabled: false, triggers: [] } },
  })
  note('putNotificationSettings', notifications.response)
  note('getNotificationSettings', (await api.GET('/openapi/notifications')).response)
  const recipient = await api.PUT('/openapi/tracking-subscriptions/{taskId}/recipient', {
    params: { path: { taskId } },
    body: { email: 'customer@example.com', name: 'A customer', language: 'fr' },
  })
  note('putTaskRecipient', recipient.response)
  const recipientLanguage: 'en' | 'de' | 'fr' | 'es' | null | undefined = recipient.data?.data.language
  void recipientLanguage
  const withRecipient = await api.GET('/openapi/tracking-subscriptions/{taskId}', { params: { path: { taskId } } })
  const messages: { trigger: string; status: string }[] | undefined = withRecipient.data?.data.notifications
  void messages
  note('deleteTaskRecipient', (await api.DELETE('/openapi/tracking-subscriptions/{taskId}/recipient', { params: { path: { taskId } } })).response)
  note('unsubscribePage', (await open.GET('/u/{token}', { params: { path: { token: 'no-such-token' } }, parseAs: 'text' })).response)
  note('unsubscribe', (await open.POST('/u/{token}', { params: { path: { token: 'no-such-token' } }, parseAs: 'text' })).response)
  // Twilio's callbacks, unsigned: refused.
  const form = { headers: { 'content-type': 'application/x-www-form-urlencoded' }, bodySerializer: (body: string) => body, parseAs: 'text' as const }
  note('twilioInboundMessage', (await open.POST('/sms/twilio/inbound', { ...form, body: 'From=%2B15005550006&Body=STOP' })).response)
  note(
    'twilioStatusCallback',
    (await open.POST('/sms/twilio/status/{messageId}', { ...form, params: { path: { messageId: 'msg_00000000' } }, body: 'MessageStatus=delivered' })).response,
  )

  // A push, unsigned: refused before it is read.
  note(
    'receivePush',
    (await open.POST('/inbound/{source}', { params: { path: { source: '17track' } }, body: { event: 'TRACKING_UPDATED', data: {} } })).response,
  )
  // UPS Track Alert's token, for the simulated UPS's client (the service runs UPS on the simulator).
  note(
    'grantPushToken',
    (
      await open.POST('/inbound/{source}/token', {
        params: { path: { source: 'ups' } },
        headers: { authorization: `Basic ${Buffer.from('simulator:simulator').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        bodySerializer: (body: string) => body,
        body: 'grant_type=client_credentials',
      })
    ).response,
  )

  const history = await api.GET('/openapi/tracking-subscriptions/{taskId}/webhooks', { params: { path: { taskId } } })
  note('listTaskWebhooks', history.response)
  note(
    'redeliverTaskWebhook',
    (await api.POST('/openapi/tracking-subscriptions/{taskId}/webhooks/{webhookId}/redeliver', { params: { path: { taskId, webhookId: 'msg_00000000' } } }))
      .response,
  )
  note('deleteTask', (await api.DELETE('/openapi/tracking-subscriptions/{taskId}', { params: { path: { taskId } } })).response)

  const endpoint = await api.POST('/openapi/webhook-endpoints', {
    body: { url: 'https://shop.example/events', eventTypes: ['tracking.milestone_changed'], milestones: ['out_for_delivery'] },
  })
  note('createWebhookEndpoint', endpoint.response)
  const endpointId: number = endpoint.data?.data.endpointId ?? 0
  const secret: string | undefined = endpoint.data?.data.secret
  void secret
  note('listWebhookEndpoints', (await api.GET('/openapi/webhook-endpoints')).response)
  note('getWebhookEndpoint', (await api.GET('/openapi/webhook-endpoints/{endpointId}', { params: { path: { endpointId } } })).response)
  note(
    'updateWebhookEndpoint',
    (await api.PATCH('/openapi/webhook-endpoints/{endpointId}', { params: { path: { endpointId } }, body: { enabled: false } })).response,
  )
  note('rotateWebhookEndpointSecret', (await api.POST('/openapi/webhook-endpoints/{endpointId}/secret/rotate', { params: { path: { endpointId } } })).response)
  const tested = await api.POST('/openapi/webhook-endpoints/{endpointId}/test', { params: { path: { endpointId } } })
  note('testWebhookEndpoint', tested.response)
  const testStatus: number | undefined = tested.data?.data.responseStatusCode
  void testStatus
  const log = await api.GET('/openapi/webhook-deliveries', { params: { query: { status: 'failed', limit: 10 } } })
  note('listWebhookDeliveries', log.response)
  const eventTypes: string[] = log.data?.data.items.map((i) => i.eventType) ?? []
  void eventTypes
  const window = { status: 'failed' as const, createdFrom: new Date(Date.now() - 3_600_000).toISOString(), createdTo: new Date().toISOString() }
  note('redeliverWebhookDeliveries', (await api.POST('/openapi/webhook-deliveries/redeliver', { body: { ...window, endpointId } })).response)
  note('deleteWebhookEndpoint', (await api.DELETE('/openapi/webhook-endpoints/{endpointId}', { params: { path: { endpointId } } })).response)

  const user = await admin.POST('/admin/api-users', { body: { name: 'client' } })
  note('createApiUser', user.response)
  const userId: number = user.data?.data.userId ?? 0
  note('listApiUsers', (await admin.GET('/admin/api-users')).response)
  const notified = await admin.GET('/admin/api-users/{userId}/notifications', { params: { path: { userId } } })
  note('getUserNotifications', notified.response)
  const suppressed: number | undefined = notified.data?.data.suppressedAddresses.email
  void suppressed
  const issued = await admin.POST('/admin/api-users/{userId}/tokens', { params: { path: { userId } } })
  note('issueApiToken', issued.response)
  note('listApiTokens', (await admin.GET('/admin/api-users/{userId}/tokens', { params: { path: { userId } } })).response)
  note(
    'revokeApiToken',
    (await admin.DELETE('/admin/api-users/{userId}/tokens/{tokenId}', { params: { path: { userId, tokenId: issued.data?.data.tokenId ?? 0 } } })).response,
  )
  note('rotateWebhookSecret', (await admin.POST('/admin/api-users/{userId}/webhook-secret/rotate', { params: { path: { userId } } })).response)
  const settings = await admin.GET('/admin/settings')
  note('getSettings', settings.response)
  note('updateSettings', (await admin.PATCH('/admin/settings', { body: { batchMaxItems: settings.data?.data.batchMaxItems ?? 100 } })).response)
  const operator = await admin.POST('/admin/operators', { body: { email: 'client@example.com', role: 'viewer', password: 'a client password' } })
  note('createOperator', operator.response)
  note('listOperators', (await admin.GET('/admin/operators')).response)
  const operatorId: number = operator.data?.data.operatorId ?? 0
  note('updateOperator', (await admin.PATCH('/admin/operators/{operatorId}', { params: { path: { operatorId } }, body: { role: 'support' } })).response)
  const audit = await admin.GET('/admin/audit-log', { params: { query: { limit: 2, action: 'operator.create' } } })
  note('listAuditLog', audit.response)
  return { outcomes, exchanges }
}
