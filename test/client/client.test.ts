import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../support/test-app'
import { Ajv2020 } from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { callEveryOperation } from './client'

interface Document {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>
}

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
    const { outcomes, exchanges } = await callEveryOperation({ baseUrl, token, adminToken: ADMIN_TOKEN })
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods))
    // Every operation is called (a new one must be added to the client), and each answered with a status it documents.
    expect(Object.keys(outcomes).sort()).toEqual(operations.map((o) => o.operationId).sort())
    for (const operation of operations) expect(Object.keys(operation.responses), operation.operationId).toContain(String(outcomes[operation.operationId]))
    expect(outcomes).toMatchObject({
      listCarriers: 200,
      mcp: 200,
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
      receivePush: 401,
      grantPushToken: 200,
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

  it('gets every answer as the document declares it: its status, its content type, its body', async () => {
    const { token } = await t.createUser('strict client')
    const { exchanges } = await callEveryOperation({ baseUrl, token, adminToken: ADMIN_TOKEN })
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document
    // The document's schemas are JSON Schema 2020-12 (OpenAPI 3.1); its $refs resolve inside it.
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats(ajv)
    ajv.addSchema(doc as object, 'openapi.json')
    const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')
    const problems: string[] = []
    for (const x of exchanges) {
      const operation = doc.paths[x.schemaPath]?.[x.method]
      const where = `${operation?.operationId ?? `${x.method} ${x.schemaPath}`} ${x.status}`
      const response = operation?.responses[String(x.status)]
      if (!response) {
        problems.push(`${where}: the status is not declared`)
        continue
      }
      const mediaType = x.contentType.split(';')[0]!.trim()
      if (!response.content) {
        if (x.body !== '') problems.push(`${where}: a body where none is declared (${mediaType})`)
        continue
      }
      if (!response.content[mediaType]) {
        problems.push(`${where}: ${mediaType || 'no content type'} where the document declares ${Object.keys(response.content).join(', ')}`)
        continue
      }
      const validate = ajv.getSchema(
        `openapi.json#/${pointer('paths', x.schemaPath, x.method, 'responses', String(x.status), 'content', mediaType, 'schema')}`,
      )!
      const value: unknown = /json/.test(mediaType) ? JSON.parse(x.body) : x.body
      if (!validate(value)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`)
    }
    expect(exchanges.length).toBeGreaterThan(50)
    expect(problems).toEqual([])
  })

  it('is typechecked in strict mode against freshly generated types (npm run check:openapi)', () => {
    const scripts = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts
    expect(scripts['check:openapi']).toContain('openapi-typescript')
    expect(scripts['check:openapi']).toContain('tsc -p test/client')
    expect(scripts.typecheck).toContain('check:openapi')
  })
})
