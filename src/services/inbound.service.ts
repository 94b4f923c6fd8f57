import type { IncomingHttpHeaders } from 'node:http'
import type { InboundRepository } from '../db/inbound.repository'
import { AppError } from '../domain/errors'

/** A source of pushes the gateway accepts: its name in `/inbound/{source}` and how its signature is checked. */
export interface InboundSource {
  readonly label: string
  verify(rawBody: Buffer, headers: IncomingHttpHeaders): boolean
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
