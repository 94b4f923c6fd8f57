import type { IncomingHttpHeaders } from 'node:http'

/** The user and password of an HTTP Basic `Authorization` header; "" for what it does not hold. */
export function basicCredentials(headers: IncomingHttpHeaders): { user: string; password: string } {
  const encoded = /^Basic (.+)$/.exec(String(headers.authorization ?? ''))?.[1] ?? ''
  const [user = '', password = ''] = Buffer.from(encoded, 'base64').toString('utf8').split(':')
  return { user, password }
}

/** Whether the header holds the expected pair; any non-empty pair when the simulator enforces none. */
export function basicHolds(headers: IncomingHttpHeaders, expected: readonly [string | undefined, string | undefined] | undefined): boolean {
  const { user, password } = basicCredentials(headers)
  return expected ? user === expected[0] && password === expected[1] : Boolean(user && password)
}
