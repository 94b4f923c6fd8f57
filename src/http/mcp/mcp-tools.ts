import type { ToolAnnotations } from '@modelcontextprotocol/server'

/**
 * The MCP server's tools (docs/mcp.md): each runs one operation of the API, named by its
 * operationId, so that its input, output, rules and errors are that operation's. The annotations
 * are honest: read-only only where nothing is written; destructive where data is lost; open-world
 * where the call reaches a carrier or the caller's webhook endpoint.
 */
export const MCP_TOOLS: readonly { name: string; operationId: string; annotations: ToolAnnotations }[] = [
  {
    name: 'track_parcel',
    operationId: 'subscribe',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  },
  { name: 'get_parcel', operationId: 'getTask', annotations: { readOnlyHint: true, openWorldHint: false } },
  { name: 'list_parcels', operationId: 'listTasks', annotations: { readOnlyHint: true, openWorldHint: false } },
  {
    name: 'subscribe_parcels',
    operationId: 'subscribeBatch',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  },
  {
    name: 'refresh_parcel',
    operationId: 'refreshTask',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  {
    name: 'stop_parcel',
    operationId: 'stopTask',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'delete_parcel',
    operationId: 'deleteTask',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  { name: 'detect_carrier', operationId: 'detectCarrier', annotations: { readOnlyHint: true, openWorldHint: false } },
  { name: 'list_carriers', operationId: 'listCarriers', annotations: { readOnlyHint: true, openWorldHint: false } },
  { name: 'list_webhook_deliveries', operationId: 'listTaskWebhooks', annotations: { readOnlyHint: true, openWorldHint: false } },
  {
    name: 'redeliver_webhook',
    operationId: 'redeliverTaskWebhook',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
]
