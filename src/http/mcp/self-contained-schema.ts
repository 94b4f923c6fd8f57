import type { TSchema } from '@sinclair/typebox'
import { allComponents } from '../schemas/common.schema'

export type JsonSchema = Record<string, unknown>

/**
 * A route's schema as a JSON Schema that stands alone: the components it names (`$ref: 'Task'`,
 * registered with Fastify and listed by the OpenAPI document) copied under `$defs` and referred to
 * there, so that a reader without the document (an MCP client) can resolve every reference.
 */
export function selfContained(schema: TSchema | JsonSchema): JsonSchema {
  const byId = new Map(allComponents().map((component) => [component.$id!, component]))
  const defs: Record<string, unknown> = {}
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite)
    if (node === null || typeof node !== 'object') return node
    const { $ref, $id: _id, ...rest } = node as JsonSchema
    const out: JsonSchema = {}
    for (const [key, value] of Object.entries(rest)) out[key] = rewrite(value)
    if (typeof $ref !== 'string') return out
    const component = byId.get($ref)
    if (!component) throw new Error(`the schema refers to ${$ref}, which is no component`)
    if (!(($ref as string) in defs)) {
      defs[$ref] = true // placed first, so that a component that refers to itself ends
      defs[$ref] = rewrite(component)
    }
    return { ...out, $ref: `#/$defs/${$ref}` }
  }
  // JSON first: TypeBox's symbol keys are not part of the schema.
  const root = rewrite(JSON.parse(JSON.stringify(schema))) as JsonSchema
  return Object.keys(defs).length > 0 ? { ...root, $defs: defs } : root
}

/** The schema of an object at its top (what a tool's input and output must be), a top-level reference opened. */
export function asObject(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref
  if (typeof ref === 'string' && ref.startsWith('#/$defs/')) {
    const { $ref: _ref, $defs, ...rest } = schema
    const opened = (($defs as Record<string, JsonSchema>) ?? {})[ref.slice('#/$defs/'.length)]!
    return { ...opened, ...rest, type: 'object', ...($defs ? { $defs } : {}) }
  }
  return { ...schema, type: 'object' }
}
