/**
 * A bounded in-process memo whose entries expire `ttlMs` after they are set (the clock passed in).
 * When full it is emptied rather than evicting one by one: what it holds is cheap to find again,
 * and a hot path pays no bookkeeping. A ttl of 0 or less keeps nothing.
 */
export class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>()

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The value set for `key`, unless it has expired. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    return entry && entry.expiresAt > this.now() ? entry.value : undefined
  }

  set(key: string, value: V): void {
    if (this.ttlMs <= 0) return
    if (this.entries.size >= this.maxEntries) this.entries.clear()
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs })
  }

  delete(key: string): void {
    this.entries.delete(key)
  }
}
