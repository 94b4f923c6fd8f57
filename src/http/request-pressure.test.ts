import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiPressure } from '../services/api-pressure'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { waitFor } from '../../test/support/wait-for'

// The HTTP layer tells the workers beside it (ROLE=all) how many requests are in flight.
let t: TestApp
let base: string
let token: string
const pressure = new ApiPressure(3)

beforeAll(async () => {
  t = await createTestApp({ pressure })
  base = await t.app.listen({ port: 0, host: '127.0.0.1' })
  token = (await t.createUser()).token
})
afterAll(() => t.close())

/** A request whose body never comes: in flight until its connection closes. */
async function hanging(): Promise<Socket> {
  const { port } = new URL(base)
  const socket = connect(Number(port), '127.0.0.1')
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write(
    `POST /openapi/tracking-subscriptions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
  )
  return socket
}

describe('requests in flight', () => {
  it('count from their headers until they are answered or their connection goes', async () => {
    const sockets = [await hanging(), await hanging()]
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(pressure.busy()).toBe(false)
    sockets.push(await hanging())
    await waitFor(() => pressure.busy(), { what: 'three requests in flight' })
    for (const socket of sockets) socket.destroy()
    await waitFor(() => !pressure.busy(), { what: 'the abandoned requests to end' })
  })

  it('end once each, answered: many requests leave nothing counted', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, () => fetch(`${base}/healthz`)))
    expect(answers.every((answer) => answer.ok)).toBe(true)
    await waitFor(() => !pressure.busy(), { what: 'the answered requests to end' })
    // Two more in flight are not three: the count went back to zero.
    const sockets = [await hanging(), await hanging()]
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(pressure.busy()).toBe(false)
    for (const socket of sockets) socket.destroy()
  })
})
