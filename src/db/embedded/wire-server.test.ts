import { connect, type Socket } from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres'

// The wire server as the service meets it: PGlite in its worker thread, in memory, reached by
// `pg` clients and, for what `pg` never sends, by hand-written protocol messages.
const MAX_CONNECTIONS = 4
let embedded: EmbeddedPostgres
const clients: pg.Client[] = []

beforeAll(async () => {
  embedded = await startEmbeddedPostgres({ dataDir: undefined, maxConnections: MAX_CONNECTIONS })
  const setup = await client()
  await setup.query('CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)')
  await setup.end()
})
afterAll(async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => {})))
  await embedded.stop()
})

async function client(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: embedded.connectionString })
  c.on('error', () => {})
  await c.connect()
  clients.push(c)
  return c
}

describe('the embedded wire server', () => {
  it('answers prepared and simple statements', async () => {
    const c = await client()
    expect((await c.query({ name: 'plus', text: 'SELECT $1::int + 1 AS n', values: [41] })).rows).toEqual([{ n: 42 }])
    expect((await c.query({ name: 'plus', text: 'SELECT $1::int + 1 AS n', values: [1] })).rows).toEqual([{ n: 2 }])
    expect((await c.query('SELECT 1 AS a; SELECT 2 AS b')) as unknown as pg.QueryResult[]).toHaveLength(2)
    await c.end()
  })

  it('answers an error in the middle of a pipeline, then the statements after its Sync', async () => {
    const raw = await RawConnection.open(embedded.port)
    raw.send(Buffer.concat([...extendedQuery('SELECT nope FROM nowhere'), ...extendedQuery("SELECT 'after' AS x")]))
    const messages = await raw.untilReady(2)
    expect(messages.map((m) => m.type).join('')).toBe('E' + 'Z' + '12TDCZ')
    expect(messages[0]!.body.toString()).toContain('relation "nowhere" does not exist')
    expect(messages.find((m) => m.type === 'D')!.body.toString()).toContain('after')
    raw.close()
  })

  it('puts a request together from messages split across many reads', async () => {
    const raw = await RawConnection.open(embedded.port)
    const bytes = Buffer.concat(extendedQuery("SELECT 'split' AS x"))
    for (const byte of bytes) {
      raw.send(Buffer.from([byte]))
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    const messages = await raw.untilReady(1)
    expect(messages.map((m) => m.type).join('')).toBe('12TDCZ')
    expect(messages.find((m) => m.type === 'D')!.body.toString()).toContain('split')
    raw.close()
  })

  it("keeps another client's statements out of the middle of an extended-protocol request", async () => {
    const raw = await RawConnection.open(embedded.port)
    const [parse, bind, describe, execute, sync] = extendedQuery("SELECT 'mine' AS x")
    raw.send(Buffer.concat([parse!, bind!]))
    await new Promise((resolve) => setTimeout(resolve, 20))
    // Its unnamed statement and portal would replace the raw client's if they ran in between.
    const other = await client()
    expect((await other.query("SELECT 'theirs' AS x")).rows).toEqual([{ x: 'theirs' }])
    raw.send(Buffer.concat([describe!, execute!, sync!]))
    const messages = await raw.untilReady(1)
    expect(messages.map((m) => m.type).join('')).toBe('12TDCZ')
    expect(messages.find((m) => m.type === 'D')!.body.toString()).toContain('mine')
    raw.close()
    await other.end()
  })

  it('declines SSL and drops a cancel request', async () => {
    const ssl = connect(embedded.port, '127.0.0.1')
    const answer = await new Promise<Buffer>((resolve) => {
      ssl.once('data', resolve)
      ssl.write(int32s(8, 80877103))
    })
    expect(answer.toString()).toBe('N')
    ssl.destroy()

    const cancel = connect(embedded.port, '127.0.0.1')
    const received: Buffer[] = []
    cancel.on('data', (chunk) => received.push(chunk))
    await new Promise((resolve) => {
      cancel.once('close', resolve)
      cancel.write(int32s(16, 80877102, 1234, 5678))
    })
    expect(received).toEqual([])
  })

  it("keeps a transaction's statements to itself: others wait for its end", async () => {
    const a = await client()
    const b = await client()
    await a.query('BEGIN')
    await a.query("INSERT INTO notes VALUES (1, 'uncommitted')")
    const order: string[] = []
    // Run inside a's transaction, b would count its row; it must wait and see none.
    const counted = b.query('SELECT count(*)::int AS n FROM notes').then((r) => {
      order.push('b counted')
      return r.rows[0].n as number
    })
    await a.query("INSERT INTO notes VALUES (2, 'uncommitted')")
    await a.query('ROLLBACK')
    order.push('a rolled back')
    expect(await counted).toBe(0)
    expect(order).toEqual(['a rolled back', 'b counted'])
    await Promise.all([a.end(), b.end()])
  })

  it('rolls back the transaction of a client that goes away inside it, and serves the others', async () => {
    const a = await client()
    const b = await client()
    await a.query('BEGIN')
    await a.query("INSERT INTO notes VALUES (3, 'abandoned')")
    const counted = b.query('SELECT count(*)::int AS n FROM notes')
    // No Terminate: the socket just goes, as when a process dies.
    ;(a as unknown as { connection: { stream: Socket } }).connection.stream.destroy()
    expect((await counted).rows[0].n).toBe(0)

    const c = await client()
    await c.query('BEGIN')
    await c.query("INSERT INTO notes VALUES (4, 'terminated')")
    await c.end() // sends Terminate inside the transaction
    expect((await b.query('SELECT count(*)::int AS n FROM notes')).rows[0].n).toBe(0)
    expect((await b.query("INSERT INTO notes VALUES (5, 'kept') RETURNING id")).rows).toEqual([{ id: 5 }])
    await b.end()
  })

  it("refuses a connection past its limit with PostgreSQL's own error, and takes one when a slot frees", async () => {
    const open = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => client()))
    const refused = new pg.Client({ connectionString: embedded.connectionString })
    refused.on('error', () => {})
    await expect(refused.connect()).rejects.toMatchObject({ code: '53300', message: 'sorry, too many clients already' })

    await open[0]!.end()
    await new Promise((resolve) => setTimeout(resolve, 20)) // the server sees the close
    const next = await client()
    expect((await next.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
    await Promise.all([next, ...open.slice(1)].map((c) => c.end()))
  })
})

function int32s(...values: number[]): Buffer {
  const buffer = Buffer.alloc(values.length * 4)
  values.forEach((value, i) => buffer.writeInt32BE(value, i * 4))
  return buffer
}

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5)
  header.write(type, 0)
  header.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([header, body])
}

const cstring = (text: string) => Buffer.from(`${text}\0`)

/** Parse, Bind, Describe, Execute, Sync of an unnamed statement without parameters. */
function extendedQuery(sql: string): Buffer[] {
  return [
    message('P', Buffer.concat([cstring(''), cstring(sql), Buffer.from([0, 0])])),
    message('B', Buffer.concat([cstring(''), cstring(''), Buffer.from([0, 0, 0, 0, 0, 0])])),
    message('D', Buffer.concat([Buffer.from('P'), cstring('')])),
    message('E', Buffer.concat([cstring(''), Buffer.alloc(4)])),
    message('S', Buffer.alloc(0)),
  ]
}

/** A protocol-3 connection driven by hand, past its startup. */
class RawConnection {
  private received = Buffer.alloc(0)
  private waiting: (() => void) | undefined

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.received = Buffer.concat([this.received, chunk])
      this.waiting?.()
    })
  }

  static async open(port: number): Promise<RawConnection> {
    const socket = connect(port, '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    const raw = new RawConnection(socket)
    const params = Buffer.concat([cstring('user'), cstring('postgres'), cstring('database'), cstring('postgres'), Buffer.from([0])])
    raw.send(Buffer.concat([int32s(params.length + 8, 196608), params]))
    await raw.untilReady(1)
    return raw
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes)
  }

  /** The messages received up to the count-th ReadyForQuery. */
  async untilReady(count: number): Promise<{ type: string; body: Buffer }[]> {
    for (;;) {
      const messages: { type: string; body: Buffer }[] = []
      let offset = 0
      let ready = 0
      while (ready < count && this.received.length - offset >= 5) {
        const end = offset + 1 + this.received.readInt32BE(offset + 1)
        if (end > this.received.length) break
        const type = String.fromCharCode(this.received[offset]!)
        messages.push({ type, body: this.received.subarray(offset + 5, end) })
        if (type === 'Z') ready++
        offset = end
      }
      if (ready === count) {
        this.received = this.received.subarray(offset)
        return messages
      }
      await new Promise<void>((resolve) => (this.waiting = resolve))
    }
  }

  close(): void {
    this.socket.destroy()
  }
}
