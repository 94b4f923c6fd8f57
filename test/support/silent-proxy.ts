import { createConnection, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy on loopback in front of a server, that can go silent as a network partition does:
 * while silent it forwards nothing either way and accepts new connections without ever answering,
 * and closes nothing (no FIN, no reset), so each side waits as it would for packets that are lost.
 * When it speaks again, what was held is forwarded and the connections go on.
 */
export class SilentProxy {
  private server: Server | undefined
  private readonly sockets = new Set<Socket>()
  /** Chunks held while silent, each with the socket it is for (or a connection to open upstream). */
  private held: (() => void)[] = []
  private silent = false
  port = 0

  constructor(
    private readonly upstreamHost: string,
    private readonly upstreamPort: number,
  ) {}

  async start(): Promise<number> {
    this.server = createServer((client) => this.pass(() => this.connect(client)))
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.port = (this.server.address() as { port: number }).port
    return this.port
  }

  /** Stops forwarding, in both directions, on every connection and for new ones. */
  goSilent(): void {
    this.silent = true
  }

  /** Forwards again, beginning with what was held, in order. */
  speak(): void {
    this.silent = false
    for (const deliver of this.held.splice(0)) deliver()
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }

  private pass(deliver: () => void): void {
    if (this.silent) this.held.push(deliver)
    else deliver()
  }

  private connect(client: Socket): void {
    const upstream = createConnection({ host: this.upstreamHost, port: this.upstreamPort })
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(from)
      from.on('data', (chunk: Buffer) => this.pass(() => to.write(chunk)))
      // A close crosses the network like data: not while silent.
      from.on('close', () => this.pass(() => to.destroy()))
      from.on('error', () => {})
    }
  }
}
