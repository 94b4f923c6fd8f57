import type { CarrierResponse } from './carrier-http'

/**
 * An access token shared by all of a carrier's requests: asked for once, kept until shortly
 * before it expires (carriers lock out or rate-limit callers that ask for one per call), renewed
 * by one request however many calls find it missing, and forgotten when the carrier refuses it.
 */
export class CachedToken {
  private token: { value: string; expiresAt: number } | undefined
  private pending: Promise<string> | undefined

  constructor(
    /** Asks the carrier for a token; `lifetimeMs` undefined when the carrier does not say. */
    private readonly request: () => Promise<{ value: string; lifetimeMs: number | undefined }>,
    private readonly now: () => number = Date.now,
    /** Renew this long before the carrier says it expires, so that none expires in flight. */
    private readonly marginMs = 5 * 60_000,
  ) {}

  get(): Promise<string> {
    if (this.token && this.token.expiresAt > this.now()) return Promise.resolve(this.token.value)
    this.pending ??= this.renew().finally(() => (this.pending = undefined))
    return this.pending
  }

  /** The carrier refused it (a 401): the next call asks for a new one. */
  forget(): void {
    this.token = undefined
  }

  /**
   * A call that carries the token: a 401 (the carrier forgot it, or it expired early) forgets it
   * and the call goes once more with a new one; what that second call answers is the answer.
   */
  async authorized(call: (token: string) => Promise<CarrierResponse>): Promise<CarrierResponse> {
    const response = await call(await this.get())
    if (response.status !== 401) return response
    this.forget()
    return call(await this.get())
  }

  private async renew(): Promise<string> {
    const { value, lifetimeMs } = await this.request()
    const expiresAt = lifetimeMs === undefined ? Infinity : this.now() + Math.max(lifetimeMs - this.marginMs, lifetimeMs / 2)
    this.token = { value, expiresAt }
    return value
  }
}
