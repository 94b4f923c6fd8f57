import type { RouteOptions } from 'fastify'
import { asObject, selfContained, type JsonSchema } from './self-contained-schema'

/** How an operation of the API is called from one object of arguments (an MCP tool's input). */
export interface ApiOperation {
  operationId: string
  summary: string
  description: string | undefined
  /** Path parameters, query parameters and body members side by side (no operation has two of a name). */
  inputSchema: JsonSchema
  /** The `data` of the operation's success envelope. */
  outputSchema: JsonSchema
  /** The request that runs the operation with these arguments; the path parameters missing from them when any is. */
  request(args: Record<string, unknown>): OperationRequest | { missing: string[] }
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'

export interface OperationRequest {
  method: Method
  url: string
  body: Record<string, unknown> | undefined
}

interface RouteSchema {
  operationId?: string
  summary?: string
  description?: string
  params?: JsonSchema
  querystring?: JsonSchema
  body?: JsonSchema
  response?: Record<string, JsonSchema>
}

const membersOf = (schema: JsonSchema | undefined) => {
  if (!schema) return { properties: {} as Record<string, unknown>, required: [] as string[] }
  const object = asObject(selfContained(schema))
  return { properties: (object.properties ?? {}) as Record<string, unknown>, required: (object.required ?? []) as string[], defs: object.$defs }
}

/** An operation read off its route: the route's own schemas are the tool's (one source for both). */
export function apiOperation(route: RouteOptions): ApiOperation {
  const schema = route.schema as RouteSchema
  const method = (Array.isArray(route.method) ? route.method[0] : route.method) as Method
  const parts = [membersOf(schema.params), membersOf(schema.querystring), membersOf(schema.body)]
  const pathNames = [...route.url.matchAll(/:(\w+)/g)].map((match) => match[1]!)
  const defs = Object.assign({}, ...parts.map((part) => ('defs' in part ? part.defs : {})))
  const inputSchema: JsonSchema = {
    type: 'object',
    properties: Object.assign({}, ...parts.map((part) => part.properties)),
    required: parts.flatMap((part) => part.required),
    additionalProperties: false,
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  }
  const success = Object.entries(schema.response ?? {}).find(([status]) => status.startsWith('2'))
  if (!success) throw new Error(`${schema.operationId} has no success answer`)
  const envelope = asObject(selfContained(success[1]))
  const data = (envelope.properties as Record<string, JsonSchema>).data!
  const outputSchema = asObject({ ...data, ...(envelope.$defs ? { $defs: envelope.$defs } : {}) })
  return {
    operationId: schema.operationId!,
    summary: schema.summary ?? schema.operationId!,
    description: schema.description,
    inputSchema,
    outputSchema,
    request(args) {
      // The API judges every argument (its own errors, field by field), but a path without a
      // parameter would be another route's.
      const missing = pathNames.filter((name) => args[name] === undefined || args[name] === null || args[name] === '')
      if (missing.length > 0) return { missing }
      const rest = { ...args }
      const url = route.url.replace(/:(\w+)/g, (_, name: string) => {
        const value = rest[name]
        delete rest[name]
        return encodeURIComponent(String(value))
      })
      if (schema.body) return { method, url, body: rest }
      const query = new URLSearchParams()
      for (const [name, value] of Object.entries(rest)) if (value !== undefined) query.set(name, String(value))
      const search = query.toString()
      return { method, url: search ? `${url}?${search}` : url, body: undefined }
    },
  }
}
