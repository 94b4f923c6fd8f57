import { allComponents } from './schemas/common.schema'
import AjvCompiler from '@fastify/ajv-compiler'
import type { TSchema } from '@sinclair/typebox'
import type { FastifyServerOptions } from 'fastify'
import { BODY_FIELD, MUST, type FieldError } from '../domain/errors'
import { isDateTime } from './parameters'

/**
 * How request bodies are checked against their TypeBox schemas, by the routes' validation and by
 * the checks a service runs itself (a subscription's, each batch item's: checkOf): one Ajv setup,
 * and its report in the words the domain's own checks use (MUST).
 */
export const AJV_OPTIONS: NonNullable<FastifyServerOptions['ajv']> = {
  // Types are never coerced; every field problem is reported at once.
  // verbose: an error carries its schema, so that "must be an integer from 1 to 1000" can say the range.
  customOptions: { coerceTypes: false, allErrors: true, removeAdditional: false, useDefaults: false, verbose: true },
  // A body's date-times are the query string's (ajv-formats would take "2026-11-24 09:30:00+0100" and refuse "…T09:30Z").
  onCreate: (ajv) => ajv.addFormat('date-time', isDateTime),
}

interface AjvError {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
  message?: string
  /** With Ajv's `verbose`: the schema of the value in error. */
  parentSchema?: { type?: string; minimum?: number; maximum?: number; enum?: string[]; maxLength?: number }
}

const TYPE_WORDS: Record<string, string> = { string: MUST.string, integer: MUST.integer, boolean: MUST.boolean, object: MUST.object, array: MUST.array }
const FORMAT_WORDS: Record<string, string> = { 'date-time': MUST.dateTime, uri: MUST.url }

/** Ajv's report of a body, in the words the domain's own checks use (MUST). */
export function fieldErrors(validation: readonly AjvError[]): FieldError[] {
  return validation.map((e) => {
    const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.')
    const child = (name: unknown) => [path, String(name)].filter(Boolean).join('.')
    const schema = e.parentSchema ?? {}
    const range = () => (schema.minimum !== undefined && schema.maximum !== undefined ? MUST.between(schema.minimum, schema.maximum) : undefined)
    switch (e.keyword) {
      case 'required':
        return { field: child(e.params.missingProperty), message: MUST.required }
      case 'additionalProperties':
        return { field: child(e.params.additionalProperty), message: MUST.unknownField }
      case 'type':
        return {
          field: path || BODY_FIELD,
          message: (schema.type === 'integer' && range()) || TYPE_WORDS[String(e.params.type)] || `must be a ${String(e.params.type)}`,
        }
      case 'minimum':
      case 'maximum':
        return { field: path, message: range() ?? `${e.message}` }
      case 'maxLength':
        return { field: path, message: MUST.atMost(Number(e.params.limit)) }
      case 'minLength':
        return { field: path, message: Number(e.params.limit) === 1 ? MUST.notEmpty : MUST.atLeast(Number(e.params.limit)) }
      case 'enum':
        return { field: path, message: MUST.oneOf((e.params.allowedValues as string[]) ?? []) }
      case 'minItems':
        return { field: path, message: MUST.atLeastItems(Number(e.params.limit)) }
      case 'uniqueItems':
        return { field: path, message: MUST.distinct(Number(e.params.j), Number(e.params.i)) }
      case 'format':
        return { field: path, message: FORMAT_WORDS[String(e.params.format)] ?? `${e.message}` }
      case 'minProperties':
        return { field: path || BODY_FIELD, message: 'must hold at least one field' }
      default:
        return { field: path || BODY_FIELD, message: e.message ?? 'is invalid' }
    }
  })
}

// Made on first use, when every component exists: a checked schema may refer to one (`ref`).
let compile: ReturnType<ReturnType<typeof AjvCompiler>> | undefined
const compiler = () => (compile ??= AjvCompiler()(Object.fromEntries(allComponents().map((s) => [s.$id!, s])), AJV_OPTIONS))

/**
 * A schema compiled into a check of one value: its problems, the first of each field (a union's
 * branches each report their own: the first says it), none when the value is what the schema says.
 */
export function checkOf(schema: TSchema): (value: unknown) => FieldError[] {
  // Compiled as itself, not as the component its $id names (the app registers those).
  const { $id: _id, ...plain } = schema
  let validate: (((value: unknown) => boolean) & { errors?: AjvError[] | null }) | undefined
  return (value) => {
    validate ??= compiler()({ schema: plain, method: 'POST', url: '', httpPart: 'body' }) as ((value: unknown) => boolean) & { errors?: AjvError[] | null }
    if (validate(value)) return []
    const seen = new Set<string>()
    return fieldErrors(validate.errors ?? []).filter((problem) => !seen.has(problem.field) && seen.add(problem.field))
  }
}
