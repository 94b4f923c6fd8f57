import type { FastifyReply } from 'fastify'
import { objectText, RawJson } from '../domain/json-text'

/**
 * The envelope of every answer, success or error (docs/api.md): `{code, data, msg}`, `code` the
 * HTTP status. Written here only, as an object for Fastify to serialise by the route's schema, or
 * as text around data that is JSON text already.
 */
export function envelope<C extends number, D, M extends string>(code: C, data: D, msg: M): { code: C; data: D; msg: M } {
  return { code, data, msg }
}

export function success<T>(data: T) {
  return envelope(200 as const, data, 'success' as const)
}

/**
 * A success answer whose data is JSON text already (a task document as the database wrote it,
 * domain/task-document.ts). Its route's response schema is `Type.Unsafe<JsonAnswer>(…)`: the
 * document describes the envelope, and the handler returns this, written by `asJsonText`.
 */
export class JsonAnswer {
  constructor(readonly text: string) {}
}

export function successText(dataText: string): JsonAnswer {
  return new JsonAnswer(envelopeText(200, dataText, 'success'))
}

/** The envelope as text, with data that is JSON text already; members in the order `envelope` writes them. */
export function envelopeText(code: number, dataText: string, msg: string): string {
  return objectText(Object.entries(envelope(code, new RawJson(dataText), msg)))
}

/** Makes the reply write a JsonAnswer as it is (instead of serialising it by the schema). */
export function asJsonText(reply: FastifyReply): FastifyReply {
  return reply.type('application/json; charset=utf-8').serializer((answer) => (answer as JsonAnswer).text)
}
