// @ts-check
import { createServer } from 'node:net'

/**
 * A PostgreSQL wire-protocol server in front of one PGlite instance, for `pg` clients on loopback.
 *
 * Why not @electric-sql/pglite-socket's server: it hands PGlite one message at a time (a prepared
 * statement's Parse/Bind/Describe/Execute/Sync is five turns of its queue) and writes every output
 * chunk to the socket on its own. Here everything a connection has sent up to its last Sync goes to
 * PGlite in one call and the answer leaves in one write, which halved a prepared primary-key
 * read's round trip (350-644 → 170-189 µs).
 *
 * A connection's states:
 *   startup  SSLRequest/GSSENCRequest are answered 'N' (no encryption on loopback); a
 *            CancelRequest is dropped with its connection (PGlite has no backend to signal); the
 *            StartupMessage goes to PGlite on its own and the connection is ready. Past
 *            maxConnections the StartupMessage is answered with PostgreSQL's own FATAL 53300.
 *   ready    Complete messages are queued for PGlite in arrival order, cut after the last message
 *            that ends a request (anything but Parse/Bind/Describe/Execute/Close, which wait for
 *            their Sync or Flush): PGlite's single session must never see another connection's
 *            messages in the middle of an extended-protocol request.
 *   closed   Terminate, end or error. Its queued requests are dropped; if it owned an open
 *            transaction block, the block is rolled back.
 *
 * PGlite has one session shared by every connection. When a request leaves it inside a
 * transaction block, that connection owns PGlite: only its requests run until the block ends (as
 * pglite-socket does), so a transaction never sees another client's statements.
 */

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const PROTOCOL_3 = 196608
/** Messages that only make sense with the Sync or Flush that follows them. */
const HELD = new Set(['P', 'B', 'D', 'E', 'C'].map((c) => c.charCodeAt(0)))
const TERMINATE = 'X'.charCodeAt(0)
const EMPTY = Buffer.alloc(0)
const ROLLBACK = simpleQuery('ROLLBACK')
const ANSWER_BUFFER_BYTES = 64 * 1024
const SPARE_BUFFERS = 16

/**
 * @typedef {{
 *   socket: import('node:net').Socket,
 *   started: boolean,
 *   refused: boolean,
 *   closed: boolean,
 *   pending: Buffer,
 * }} Connection
 * @typedef {{ connection: Connection | null, bytes: Uint8Array }} Request
 */

/**
 * @param {{ db: import('@electric-sql/pglite').PGlite, host: string, port: number, maxConnections: number }} options
 * @returns {Promise<{ port: number, stop(): Promise<void> }>}
 */
export async function startWireServer({ db, host, port, maxConnections }) {
  /** @type {Set<Connection>} */
  const connections = new Set()
  /** @type {Request[]} */
  let queue = []
  /** @type {Connection | null} the connection whose request left PGlite in a transaction block */
  let owner = null
  let running = false

  // Answers are built in reused buffers: one fresh buffer per answer (and one per chunk PGlite
  // writes) kept the worker's garbage collector marking several times a second under load.
  /** @type {Buffer[]} */
  const spare = []
  const takeBuffer = (/** @type {number} */ size) => {
    const buffer = spare.pop()
    return buffer && buffer.length >= size ? buffer : Buffer.allocUnsafeSlow(Math.max(size, ANSWER_BUFFER_BYTES))
  }
  const giveBack = (/** @type {Buffer} */ buffer) => {
    if (spare.length < SPARE_BUFFERS) spare.push(buffer)
  }
  let answer = takeBuffer(ANSWER_BUFFER_BYTES)
  let answerLength = 0
  /** @param {Uint8Array} bytes a view into PGlite's memory, valid only during the call */
  const collect = (bytes) => {
    if (answerLength + bytes.length > answer.length) {
      const bigger = takeBuffer(2 * (answerLength + bytes.length))
      answer.copy(bigger, 0, 0, answerLength)
      giveBack(answer)
      answer = bigger
    }
    answer.set(bytes, answerLength)
    answerLength += bytes.length
  }

  function nextRequest() {
    if (owner === null) return queue.shift()
    const index = queue.findIndex((request) => request.connection === owner)
    return index === -1 ? undefined : queue.splice(index, 1)[0]
  }

  async function drain() {
    if (running) return
    running = true
    try {
      for (let request = nextRequest(); request; request = nextRequest()) {
        const { connection } = request
        answerLength = 0
        try {
          await db.execProtocolRawStream(request.bytes, { onRawData: collect })
        } catch (error) {
          // PGlite threw outside PostgreSQL's own error handling: nothing sane is left to answer.
          connection?.socket.destroy(error instanceof Error ? error : new Error(String(error)))
        }
        owner = db.isInTransaction() ? connection : null
        if (connection && !connection.closed && answerLength > 0) {
          // The buffer is the socket's until it has written it; the next answer takes another.
          const sent = answer
          connection.socket.write(sent.subarray(0, answerLength), () => giveBack(sent))
          answer = takeBuffer(ANSWER_BUFFER_BYTES)
        }
      }
    } finally {
      running = false
    }
  }

  /** @param {Connection | null} connection null for the server's own statements @param {Uint8Array} bytes */
  function enqueue(connection, bytes) {
    queue.push({ connection, bytes })
    void drain()
  }

  /** @param {Connection} connection @param {Buffer} chunk */
  function receive(connection, chunk) {
    let data = connection.pending.length === 0 ? chunk : Buffer.concat([connection.pending, chunk])
    let offset = 0
    while (!connection.started && !connection.closed && data.length - offset >= 8) {
      const length = data.readInt32BE(offset)
      if (data.length - offset < length) break
      const code = data.readInt32BE(offset + 4)
      const message = data.subarray(offset, offset + length)
      offset += length
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        connection.socket.write('N')
      } else if (code === PROTOCOL_3 && connection.refused) {
        connection.socket.end(fatal('53300', 'sorry, too many clients already'))
        close(connection)
      } else if (code === PROTOCOL_3) {
        connection.started = true
        enqueue(connection, message)
      } else {
        // CancelRequest (80877102), or a protocol PGlite does not speak: close without an answer.
        connection.socket.destroy()
        close(connection)
      }
    }

    const first = offset // the first typed message
    let cut = offset // the end of the last message that ends a request
    let terminated = false
    while (connection.started && !connection.closed && data.length - offset >= 5) {
      const type = data[offset]
      const end = offset + 1 + data.readInt32BE(offset + 1)
      if (end > data.length) break
      // What came before a Terminate runs; held messages without their Sync go with the client.
      terminated = type === TERMINATE
      if (terminated) break
      offset = end
      if (!HELD.has(type)) cut = end
    }
    if (connection.closed) return
    if (cut > first) enqueue(connection, data.subarray(first, cut))
    if (terminated) {
      connection.socket.end()
      close(connection)
      return
    }
    // Copied: the rest of a large chunk would otherwise stay alive for a few bytes.
    connection.pending = cut < data.length ? Buffer.from(data.subarray(cut)) : EMPTY
  }

  /** @param {Connection} connection */
  function close(connection) {
    if (connection.closed) return
    connection.closed = true
    connections.delete(connection)
    queue = queue.filter((request) => request.connection !== connection)
    if (owner !== connection) return
    // The owner went away inside its transaction: roll it back ahead of everyone else, as
    // PostgreSQL does when a backend's client disconnects.
    owner = null
    queue.unshift({ connection: null, bytes: ROLLBACK })
    void drain()
  }

  const server = createServer((socket) => {
    socket.setNoDelay(true)
    /** @type {Connection} */
    const connection = {
      socket,
      started: false,
      refused: connections.size >= maxConnections,
      closed: false,
      pending: EMPTY,
    }
    if (!connection.refused) connections.add(connection)
    socket.on('data', (chunk) => receive(connection, chunk))
    socket.on('error', () => close(connection))
    socket.on('close', () => close(connection))
  })

  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve(undefined))
  })
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('the wire server has no TCP address')

  return {
    port: address.port,
    async stop() {
      for (const connection of [...connections]) {
        connection.socket.destroy()
        close(connection)
      }
      await new Promise((resolve) => server.close(() => resolve(undefined)))
      // Let the rollback of an abandoned transaction finish before PGlite closes.
      while (running) await new Promise((resolve) => setImmediate(resolve))
    },
  }
}

/** A simple-protocol Query message. @param {string} sql */
function simpleQuery(sql) {
  return message('Q', Buffer.from(`${sql}\0`))
}

/** An ErrorResponse with severity FATAL, as PostgreSQL sends before closing a connection. */
function fatal(/** @type {string} */ sqlState, /** @type {string} */ text) {
  return message('E', Buffer.from(`SFATAL\0VFATAL\0C${sqlState}\0M${text}\0\0`))
}

/** A typed protocol message: its type byte, its length, its body. */
function message(/** @type {string} */ type, /** @type {Buffer} */ body) {
  const header = Buffer.alloc(5)
  header.write(type, 0)
  header.writeInt32BE(4 + body.length, 1)
  return Buffer.concat([header, body])
}
