import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../support/test-app'
import { callEveryOperation } from './client'

let t: TestApp
let baseUrl: string
beforeAll(async () => {
  t = await createTestApp()
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(() => t.close())

describe('a client generated from /openapi.json', () => {
  it('calls every operation of the document, each answered as the document says', async () => {
    const { token } = await t.createUser('client')
    const outcomes = await callEveryOperation({ baseUrl, token, adminToken: ADMIN_TOKEN })
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>
    }
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods))
    // Every operation is called (a new one must be added to the client), and each answered with a status it documents.
    expect(Object.keys(outcomes).sort()).toEqual(operations.map((o) => o.operationId).sort())
    for (const operation of operations) expect(Object.keys(operation.responses), operation.operationId).toContain(String(outcomes[operation.operationId]))
    expect(outcomes).toMatchObject({
      listCarriers: 200,
      detectCarrier: 200,
      subscribe: 200,
      subscribeBatch: 200,
      importSubscriptions: 200,
      exportSubscriptions: 200,
      getSubscription: 200,
      getTask: 200,
      putTrackingPageBrand: 200,
      getTrackingPageBrand: 200,
      trackingPage: 200,
      rotateTrackingPage: 200,
      transitTimes: 200,
      listTasks: 200,
      stopTask: 200,
      refreshTask: 202,
      changeTaskCarrier: 200,
      putAccountSettings: 200,
      getAccountSettings: 200,
      putNotificationSettings: 200,
      getNotificationSettings: 200,
      putTaskRecipient: 200,
      deleteTaskRecipient: 200,
      unsubscribePage: 404,
      unsubscribe: 404,
      twilioInboundMessage: 401,
      twilioStatusCallback: 401,
      listTaskWebhooks: 200,
      redeliverTaskWebhook: 404,
      deleteTask: 200,
      createApiUser: 200,
      getUserNotifications: 200,
      createOperator: 200,
      updateOperator: 200,
      listAuditLog: 200,
    })
  })

  it('is typechecked in strict mode against freshly generated types (npm run check:openapi)', () => {
    const scripts = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts
    expect(scripts['check:openapi']).toContain('openapi-typescript')
    expect(scripts['check:openapi']).toContain('tsc -p test/client')
    expect(scripts.typecheck).toContain('check:openapi')
  })
})
