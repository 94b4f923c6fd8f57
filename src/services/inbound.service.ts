import type { IncomingHttpHeaders } from 'node:http'
import type { InboundRepository } from '../db/inbound.repository'
import { AppError } from '../domain/errors'

/** A source of pushes the gateway accepts: its name in `/inbound/{source}` and how its signature is checked. */
export interface InboundSource {
  readonly label: string
  verify(rawBody: Buffer, headers: IncomingHttpHeaders): boolean
  /** A sender that is our OAuth client (UPS Track Alert v2) fetches its push token here; null when refused. */
  grantToken?(headers: IncomingHttpHeaders, rawBody: Buffer): { accessToken: string; expiresIn: number } | null
}

export interface InboundCounts {
  counted(source: string, outcome: 'stored' | 'duplicate' | 'refused'): void
}

/**
 * The inbound gateway's unit of work (docs/carriers.md, "Pushes"): a push is verified over its
 * raw bytes before anything reads it, written durably, and only then answered, so that a push
 * answered 2xx is never lost and a push the database could not take is answered 503 (the sender
 * retries). The workers apply it afterwards (inbound-apply.service.ts).
 */
export class InboundService {
  private readonly sources: Map<string, InboundSource>

  constructor(
    private readonly repository: InboundRepository,
    sources: readonly InboundSource[],
    private readonly wake: () => void,
    private readonly counts: InboundCounts = { counted() {} },
  ) {
    this.sources = new Map(sources.map((s) => [s.label, s]))
  }

  /** The token a sender pushes with (OAuth client credentials, RFC 6749 4.4). */
  grantToken(label: string, rawBody: Buffer, headers: IncomingHttpHeaders): { accessToken: string; expiresIn: number } {
    const source = this.sources.get(label)
    if (!source?.grantToken) throw new AppError('not_found', `no push source ${label} with a token endpoint on this service`)
    const token = source.grantToken(headers, rawBody)
    if (!token) {
      this.counts.counted(label, 'refused')
      throw new AppError('unauthorized', 'the client credentials do not match this service’s')
    }
    return token
  }

  async receive(label: string, rawBody: Buffer, headers: IncomingHttpHeaders): Promise<{ duplicate: boolean }> {
    const source = this.sources.get(label)
    if (!source) throw new AppError('not_found', `no push source ${label} on this service`)
    if (!source.verify(rawBody, headers)) {
      this.counts.counted(label, 'refused')
      throw new AppError('unauthorized', 'the push signature does not match this body')
    }
    const stored = await this.repository.store(label, rawBody)
    this.counts.counted(label, stored ? 'stored' : 'duplicate')
    if (stored) this.wake()
    return { duplicate: !stored }
  }
}
