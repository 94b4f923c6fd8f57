import type { FastifySchemaCompiler } from 'fastify'
import { MUST, type FieldError } from '../domain/errors'

/**
 * Path and query parameters. Their schemas document them with their real types (integer,
 * boolean, date-time, enum), and this compiler checks the strings a URL carries against them
 * strictly, converting each to its type: no loose coercion ("1e3", " 7" and "1.5" are not
 * integers, "yes" is not a boolean), unknown and repeated parameters refused, every problem
 * reported at once in the words of MUST (domain/errors.ts).
 */

interface ParameterSchema {
  type?: 'integer' | 'boolean' | 'string'
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  enum?: readonly string[]
  format?: string
  pattern?: string
  /** A comma-separated list of `items`' values (`?standardStatus=pending,in_transit`). */
  'x-comma-separated'?: { enum: readonly string[] }
}

interface ObjectSchema {
  properties?: Record<string, ParameterSchema>
  required?: readonly string[]
}

/** An ISO 8601 date-time with a time zone, as the API writes them (seconds and fraction optional). */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i

/**
 * Whether a date-time parameter or body field is one the API takes: the same rule for both, every
 * part in its range (Date.parse takes 2026-02-30 for March 2nd and 24:00 for the next day).
 */
export function isDateTime(raw: string): boolean {
  const parts = DATE_TIME.exec(raw)
  if (!parts) return false
  const [year, month, day, hour, minute, second = 0, offsetHours = 0, offsetMinutes = 0] = parts.slice(1).map((p) => (p === undefined ? undefined : Number(p)))
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate()
  return (
    month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth && hour! <= 23 && minute! <= 59 && second <= 59 && offsetHours <= 23 && offsetMinutes <= 59
  )
}

/** A calendar day, YYYY-MM-DD, that exists. */
export function isDate(raw: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(raw) && isDateTime(`${raw}T00:00Z`)
}

export class ParameterError extends Error {
  constructor(readonly details: FieldError[]) {
    super('invalid parameters')
  }
}

export const parameterCompiler: FastifySchemaCompiler<ObjectSchema> = ({ schema, httpPart }) => {
  const properties = schema.properties ?? {}
  const required = new Set(schema.required ?? [])
  const unknown = httpPart === 'querystring' ? MUST.unknownParameter : MUST.unknownField
  return (data: unknown) => {
    const input = (data ?? {}) as Record<string, unknown>
    const value: Record<string, unknown> = {}
    const details: FieldError[] = []
    for (const [name, raw] of Object.entries(input)) {
      const property = properties[name]
      if (!property) details.push({ field: name, message: unknown })
      else if (Array.isArray(raw)) details.push({ field: name, message: MUST.repeated })
      else {
        const parsed = parseParameter(String(raw), property)
        if ('problem' in parsed) details.push({ field: name, message: parsed.problem })
        else value[name] = parsed.value
      }
    }
    for (const name of required) if (input[name] === undefined) details.push({ field: name, message: MUST.required })
    return details.length > 0 ? { error: new ParameterError(details) } : { value }
  }
}

function parseParameter(raw: string, schema: ParameterSchema): { value: unknown } | { problem: string } {
  switch (schema.type) {
    case 'integer': {
      const min = schema.minimum ?? Number.MIN_SAFE_INTEGER
      const max = schema.maximum ?? Number.MAX_SAFE_INTEGER
      const n = /^(0|-?[1-9][0-9]{0,15})$/.test(raw) ? Number(raw) : NaN
      if (!Number.isSafeInteger(n) || n < min || n > max)
        return { problem: min === 1 && max === Number.MAX_SAFE_INTEGER ? MUST.positiveInteger : MUST.between(min, max) }
      return { value: n }
    }
    case 'boolean':
      return raw === 'true' ? { value: true } : raw === 'false' ? { value: false } : { problem: MUST.boolean }
    default: {
      if (!raw.isWellFormed()) return { problem: MUST.wellFormed }
      // No text of PostgreSQL's can hold NUL: no parameter may.
      if (raw.includes('\u0000')) return { problem: 'must not contain NUL characters' }
      if (schema.minLength !== undefined && raw.length < schema.minLength)
        return { problem: schema.minLength === 1 ? MUST.notEmpty : MUST.atLeast(schema.minLength) }
      if (schema.maxLength !== undefined && raw.length > schema.maxLength) return { problem: MUST.atMost(schema.maxLength) }
      if (schema.enum && !schema.enum.includes(raw)) return { problem: MUST.oneOf(schema.enum) }
      if (schema.format === 'date-time' && !isDateTime(raw)) {
        // `…T09:30:00+01:00` written into a URL unencoded arrives with a space for its "+".
        const plus = raw.replace(/ (\d{2}:\d{2})$/, '+$1')
        return { problem: plus !== raw && isDateTime(plus) ? MUST.dateTimeSpace : MUST.dateTime }
      }
      if (schema.format === 'date' && !isDate(raw)) return { problem: MUST.date }
      if (schema.pattern && !new RegExp(schema.pattern, 'u').test(raw)) return { problem: `must match ${schema.pattern}` }
      const list = schema['x-comma-separated']
      if (list) {
        const values = raw.split(',')
        const wrong = values.filter((v) => !list.enum.includes(v))
        if (wrong.length > 0) return { problem: MUST.listOf(list.enum, wrong) }
        return { value: [...new Set(values)] }
      }
      return { value: raw }
    }
  }
}
