import type { FastifyReply } from 'fastify'
import { objectText, RawJson } from '../domain/json-text'

export function success<T>(data: T) {
  return { code: 200 as const, data, msg: 'success' as const }
}

/**
 * A success answer whose data is JSON text already (a task document with its events as kept,
 * domain/task-json.ts). Its route's response schema is `Type.Unsafe<JsonAnswer>(…)`: the
 * document describes the envelope, and the handler returns this, written by `asJsonText`.
 */
export class JsonAnswer {
  constructor(readonly text: string) {}
}

export function successText(dataText: string): JsonAnswer {
  return new JsonAnswer(objectText([['code', 200], ['data', new RawJson(dataText)], ['msg', 'success']]))
}

/** Makes the reply write a JsonAnswer as it is (instead of serialising it by the schema). */
export function asJsonText(reply: FastifyReply): FastifyReply {
  return reply.type('application/json; charset=utf-8').serializer((answer) => (answer as JsonAnswer).text)
}
