/**
 * Waits until `check` gives a truthy value and returns it; fails after `timeoutMs` saying what it
 * waited for. Tests wait on conditions, never on a fixed sleep.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string | (() => string) } = {},
): Promise<NonNullable<T>> {
  const { timeoutMs = 10_000, intervalMs = 50 } = options
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value) return value as NonNullable<T>
      last = value
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline) {
      const what = typeof options.what === 'function' ? options.what() : (options.what ?? 'a condition')
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last instanceof Error ? last.message : String(last)})`)
    }
    await new Promise((r) => setTimeout(r, intervalMs))
  }
}
