import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Action } from '../../domain/operators'
import type { ConsoleSession } from '../../services/console-session.service'

/** The console's session cookie: HttpOnly, SameSite=Strict, for /console only, Secure behind https. */
export const COOKIE = 'console_session'

export function cookieOf(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=')
    if (name === COOKIE) return value.join('=')
  }
  return undefined
}

/** https itself, or a proxy in front saying so. */
function isHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https' || request.headers['x-forwarded-proto'] === 'https'
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, value: string, maxAgeSeconds: number): void {
  reply.header('set-cookie', `${COOKIE}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${isHttps(request) ? '; Secure' : ''}`)
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', `${COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0${isHttps(request) ? '; Secure' : ''}`)
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The console session of a signed-in operator (set by the console's session hook). */
    consoleSession: ConsoleSession | undefined
  }
  interface FastifyContextConfig {
    /** A console form's action: the least role that may take it is checked before the handler runs. */
    action?: Action
  }
}
