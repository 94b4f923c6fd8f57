import { beforeAll, describe, expect, it } from 'vitest'
import { HOOK as hook, PATH, subscriptionApi } from '../../../test/support/subscription-api'
import { ADMIN_TOKEN, type TestApp } from '../../../test/support/test-app'

// The customer's notifications through the API: the settings, a task's recipient on subscribe,
// batch, PUT and DELETE, and tenancy.
const api = subscriptionApi()
const { subscribe, batch, number } = api
let t: TestApp
let token: string
let otherToken: string
beforeAll(() => ({ t, token, otherToken } = api))

const full = async (taskId: number, as = token) => (await t.as(as, { method: 'GET', url: `${PATH}/${taskId}` })).json().data
const recipientOf = async (taskId: number) => (await full(taskId)).recipient

describe('GET/PUT /openapi/notifications', () => {
  it('are off by default, replaced whole, refused with a line break or an unknown trigger', async () => {
    const initial = (await t.as(token, { method: 'GET', url: '/openapi/notifications' })).json().data
    expect(initial).toEqual({
      email: {
        enabled: false,
        triggers: ['in_transit', 'out_for_delivery', 'available_for_pickup', 'failed_attempt', 'delivered', 'exception'],
        fromName: null,
        replyTo: null,
      },
      sms: { enabled: false, triggers: ['in_transit', 'out_for_delivery', 'available_for_pickup', 'failed_attempt', 'delivered', 'exception'] },
    })
    const settings = {
      email: { enabled: true, triggers: ['delivered'], fromName: ' Acme Store ', replyTo: 'care@acme.example' },
      sms: { enabled: false, triggers: [] },
    }
    const saved = await t.as(token, { method: 'PUT', url: '/openapi/notifications', payload: settings })
    expect(saved.statusCode, saved.body).toBe(200)
    expect(saved.json().data.email).toEqual({ enabled: true, triggers: ['delivered'], fromName: 'Acme Store', replyTo: 'care@acme.example' })
    expect((await t.as(token, { method: 'GET', url: '/openapi/notifications' })).json().data).toEqual(saved.json().data)
    // Another user's are their own.
    expect((await t.as(otherToken, { method: 'GET', url: '/openapi/notifications' })).json().data.email.enabled).toBe(false)

    for (const bad of [
      { ...settings, email: { ...settings.email, fromName: 'Acme\r\nBcc: all@example.com' } },
      { ...settings, email: { ...settings.email, triggers: ['pending'] } },
      { ...settings, email: { ...settings.email, replyTo: 'nobody' } },
      { email: settings.email },
    ]) {
      const res = await t.as(token, { method: 'PUT', url: '/openapi/notifications', payload: bad })
      expect(res.statusCode, JSON.stringify(bad)).toBe(400)
      expect(res.json().data.error).toBe('validation_error')
    }
  })
})

describe('GET /admin/api-users/{userId}/notifications', () => {
  it("shows a user's settings and suppressed addresses to the admin token only; an unknown user is not found", async () => {
    const [acme] = await t.db.query<{ id: number }>(`SELECT id FROM api_users WHERE name = 'acme'`)
    const url = `/admin/api-users/${acme!.id}/notifications`
    const res = await t.as(ADMIN_TOKEN, { method: 'GET', url })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data).toMatchObject({ settings: { email: { enabled: expect.any(Boolean) } }, suppressedAddresses: { email: 0, sms: 0 } })
    expect((await t.as(token, { method: 'GET', url })).statusCode).toBe(401)
    expect((await t.as(ADMIN_TOKEN, { method: 'GET', url: '/admin/api-users/999999/notifications' })).statusCode).toBe(404)
  })
})

describe("a task's recipient", () => {
  it('is set by the single subscribe, replaced by it, kept when it names none, removed by null', async () => {
    const trackingNumber = number()
    const body = { carrierCode: 'FEDEX', trackingNumber, callbackUrl: hook }
    const { taskId } = (await subscribe({ ...body, recipient: { email: 'ana@example.com', language: 'es' } })).json().data
    expect(await recipientOf(taskId)).toEqual({ email: 'ana@example.com', phone: null, name: null, language: 'es' })
    await subscribe({ ...body, recipient: { phone: '+34600123456', name: 'Ana' } })
    expect(await recipientOf(taskId)).toEqual({ email: null, phone: '+34600123456', name: 'Ana', language: null })
    // The interface's own subscribe, without the field: the recipient stays.
    expect((await subscribe(body)).json().data.result).toBe('updated')
    expect(await recipientOf(taskId)).toEqual({ email: null, phone: '+34600123456', name: 'Ana', language: null })
    await subscribe({ ...body, recipient: null })
    expect(await recipientOf(taskId)).toBeNull()
    expect((await full(taskId)).notifications).toEqual([])
  })

  it('is set by a batch on the tasks it creates; a reused item keeps its own; a bad recipient fails its item alone', async () => {
    const kept = number()
    const { taskId: keptId } = (
      await subscribe({ carrierCode: 'FEDEX', trackingNumber: kept, callbackUrl: hook, recipient: { email: 'old@example.com' } })
    ).json().data
    const fresh = number()
    const res = await batch([
      { carrierCode: 'FEDEX', trackingNumber: kept, callbackUrl: hook, recipient: { email: 'new@example.com' } },
      { carrierCode: 'FEDEX', trackingNumber: fresh, callbackUrl: hook, recipient: { email: 'fresh@example.com', name: 'Fresh' } },
      { carrierCode: 'FEDEX', trackingNumber: number(), callbackUrl: hook, recipient: { email: 'bad\n@example.com' } },
      // The same address for a second parcel: one address of the shop's, two recipients.
      { carrierCode: 'FEDEX', trackingNumber: number(), callbackUrl: hook, recipient: { email: 'fresh@EXAMPLE.com', language: 'de' } },
    ])
    expect(res.statusCode, res.body).toBe(200)
    const results = res.json().data.results as { result: string; taskId: number; message: string }[]
    expect(results.map((r) => r.result)).toEqual(['reused', 'created', 'validation_error', 'created'])
    expect(await recipientOf(results[3]!.taskId)).toEqual({ email: 'fresh@example.com', phone: null, name: null, language: 'de' })
    expect(results[2]!.message).toContain('recipient.email')
    expect((await recipientOf(keptId)).email).toBe('old@example.com')
    expect(await recipientOf(results[1]!.taskId)).toEqual({ email: 'fresh@example.com', phone: null, name: 'Fresh', language: null })
  })

  it("is set by PUT and removed by DELETE …/{taskId}/recipient; another user's task is not found", async () => {
    const { taskId } = (await subscribe({ carrierCode: 'FEDEX', trackingNumber: number(), callbackUrl: hook })).json().data
    const url = `${PATH}/${taskId}/recipient`
    const put = await t.as(token, { method: 'PUT', url, payload: { email: 'Bo@Example.com', name: 'Bo', language: 'xx' } })
    expect(put.statusCode, put.body).toBe(200)
    expect(put.json().data).toEqual({ email: 'Bo@example.com', phone: null, name: 'Bo', language: null })
    expect(await recipientOf(taskId)).toEqual(put.json().data)
    const bad = await t.as(token, { method: 'PUT', url, payload: { name: 'Bo' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().data.details).toEqual([{ field: '', message: 'must hold an email or a phone' }])
    expect((await t.as(otherToken, { method: 'PUT', url, payload: { email: 'x@example.com' } })).statusCode).toBe(404)
    expect((await t.as(otherToken, { method: 'DELETE', url })).statusCode).toBe(404)
    expect((await t.as(otherToken, { method: 'GET', url: `${PATH}/${taskId}` })).statusCode).toBe(404)
    const removed = await t.as(token, { method: 'DELETE', url })
    expect(removed.statusCode).toBe(200)
    expect(removed.json().data).toEqual({ recipient: null })
    expect(await recipientOf(taskId)).toBeNull()
    // Deleting the task deletes its recipient.
    await t.as(token, { method: 'PUT', url, payload: { email: 'bo@example.com' } })
    expect((await t.as(token, { method: 'DELETE', url: `${PATH}/${taskId}` })).statusCode).toBe(200)
    const [left] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM task_recipients WHERE task_id = $1', [taskId])
    expect(left!.n).toBe(0)
  })
})
