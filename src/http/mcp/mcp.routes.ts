import { Readable } from 'node:stream'
import {
  createMcpHandler,
  fromJsonSchema,
  McpServer,
  type CallToolResult,
  type jsonSchemaValidator,
  type StandardSchemaWithJSON,
  type ToolAnnotations,
} from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { invalid } from '../../domain/errors'
import type { AuthService } from '../../services/auth.service'
import { errorEnvelope } from '../error-handler'
import { McpExchange, McpNoSession } from '../schemas/mcp.schema'
import { apiOperation, type ApiOperation } from './api-operation'
import { MCP_TOOLS } from './mcp-tools'

export interface McpRoutesOptions {
  auth: AuthService
  /** The API's routes by operationId (collected by buildApp as they were registered). */
  operations: ReadonlyMap<string, RouteOptions>
}

/**
 * The API's input and answers are judged by the API itself: an argument the operation refuses is
 * its `validation_error` with the field named, as over HTTP, not the SDK's own wording.
 */
const judgedByTheApi: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
}

interface Tool {
  name: string
  operation: ApiOperation
  config: { title: string; description: string; inputSchema: StandardSchemaWithJSON; outputSchema: StandardSchemaWithJSON; annotations: ToolAnnotations }
}

/**
 * `POST /mcp`: the Model Context Protocol over stateless Streamable HTTP (docs/mcp.md), with the
 * API user's token as Bearer. Each tool runs its operation through the API's own route in this
 * process (`inject`), under the caller's token: the same checks, tenancy, answers and errors.
 */
export const mcpRoutes: FastifyPluginAsync<McpRoutesOptions> = async (app, { auth, operations }) => {
  const tools: Tool[] = MCP_TOOLS.map((tool) => {
    const route = operations.get(tool.operationId)
    if (!route) throw new Error(`the MCP tool ${tool.name} runs ${tool.operationId}, which is no operation of the API`)
    const operation = apiOperation(route)
    return {
      name: tool.name,
      operation,
      config: {
        title: operation.summary,
        description: operation.description ? `${operation.summary}. ${operation.description}` : operation.summary,
        inputSchema: fromJsonSchema(operation.inputSchema as never, judgedByTheApi),
        outputSchema: fromJsonSchema(operation.outputSchema as never, judgedByTheApi),
        annotations: { title: operation.summary, ...tool.annotations },
      },
    }
  })

  const handler = createMcpHandler(({ authInfo }) => {
    const caller = authInfo?.extra as unknown as Caller
    const server = new McpServer({ name: 'tracking-subscriptions', version: '1.0.0' })
    for (const tool of tools) {
      server.registerTool(tool.name, tool.config, (args: unknown) => runOperation(app, caller, tool.operation, (args ?? {}) as Record<string, unknown>))
    }
    return server
  })
  app.addHook('onClose', async () => handler.close())

  app.decorateRequest('userId', 0)
  app.addHook('onRequest', async (request) => {
    request.userId = await auth.authenticate(request.headers.authorization)
  })

  const exchange = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller: Caller = { authorization: request.headers.authorization!, address: request.ip, requestId: request.id }
    const answer = await handler.fetch(webRequest(request), {
      authInfo: { token: caller.authorization, clientId: String(request.userId), scopes: [], extra: caller as never },
      parsedBody: request.body,
    })
    reply.code(answer.status)
    answer.headers.forEach((value, name) => void reply.header(name, value))
    return reply.send(answer.body ? Readable.fromWeb(answer.body as never) : '')
  }
  app.post('/mcp', { schema: McpExchange }, exchange)
  app.route({ method: ['GET', 'DELETE'], url: '/mcp', schema: McpNoSession, handler: exchange })
}

interface Caller {
  authorization: string
  address: string
  requestId: string
}

async function runOperation(app: FastifyInstance, caller: Caller, operation: ApiOperation, args: Record<string, unknown>): Promise<CallToolResult> {
  const request = operation.request(args)
  if ('missing' in request) return failed(errorEnvelope(invalid(request.missing.map((field) => ({ field, message: 'is required' })))))
  const answer = await app.inject({
    method: request.method,
    url: request.url,
    headers: { authorization: caller.authorization, 'x-request-id': caller.requestId, ...(request.body ? { 'content-type': 'application/json' } : {}) },
    ...(request.body ? { payload: JSON.stringify(request.body) } : {}),
    remoteAddress: caller.address,
  })
  const envelope = answer.json() as { code: number; data: Record<string, unknown>; msg: string }
  if (answer.statusCode >= 300) return failed(envelope)
  return { content: [{ type: 'text', text: JSON.stringify(envelope.data) }], structuredContent: envelope.data }
}

/** A tool error: the operation's error envelope as the API answered it (`data.error` is the code). */
function failed(envelope: unknown): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }] }
}

const HOP_BY_HOP = new Set(['connection', 'content-length', 'transfer-encoding', 'keep-alive'])

/** The request as the SDK's web-standard handler takes it (its body already parsed: `parsedBody`). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  const body = request.method === 'POST' && request.body !== undefined ? JSON.stringify(request.body) : undefined
  return new Request(new URL(request.url, `http://${request.headers.host ?? 'localhost'}`), { method: request.method, headers, ...(body ? { body } : {}) })
}
