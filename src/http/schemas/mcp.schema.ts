import { Type } from '@sinclair/typebox'
import { errors } from './common.schema'

const JsonRpc = Type.Object(
  { jsonrpc: Type.Literal('2.0') },
  { additionalProperties: true, description: 'a JSON-RPC 2.0 message of the Model Context Protocol' },
)

/** POST /mcp: one JSON-RPC exchange of the Model Context Protocol (docs/mcp.md). */
export const McpExchange = {
  operationId: 'mcp',
  summary: 'The Model Context Protocol: the API as tools for agents',
  description:
    "Streamable HTTP, stateless (no session; every request stands alone, and GET or DELETE /mcp answer 405), with the API token as Bearer. Served only when MCP_ENABLED=true. Each tool runs one operation of this document with the caller's token (docs/mcp.md); /mcp itself counts against the address's rate limit, each operation a tool runs against the token's.",
  tags: ['mcp'],
  body: JsonRpc,
  response: {
    200: {
      description: 'the answer to a request: JSON, or an event stream carrying it',
      content: { 'application/json': { schema: JsonRpc }, 'text/event-stream': { schema: Type.String() } },
    },
    202: Type.Null({ description: 'a notification or a response, accepted' }),
    ...errors(400, 401, 413, 415, 429),
  },
}

/**
 * GET and DELETE /mcp: a session's stream and its end, which a stateless server has not. They answer
 * 405 as the protocol asks, and are no operations of the document (an operation there has a success).
 */
export const McpNoSession = { hide: true }
