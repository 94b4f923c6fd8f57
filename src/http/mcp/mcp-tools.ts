import type { ToolAnnotations } from '@modelcontextprotocol/server'

/**
 * The MCP server's tools (docs/mcp.md): each runs one operation of the API, named by its
 * operationId, so that its input, output, rules and errors are that operation's. The annotations
 * are honest: read-only only where nothing is written; destructive where data is lost; open-world
 * where the call reaches a carrier or the caller's webhook endpoint.
 */
/** Nothing written: a read of the caller's own data. */
const READS: ToolAnnotations = { readOnlyHint: true, openWorldHint: false }
/** Something written: whether again with the same arguments changes nothing more, and whether it reaches a carrier or a webhook endpoint. */
const writes = (idempotent: boolean, openWorld: boolean, destructive = false): ToolAnnotations => ({
  readOnlyHint: false,
  destructiveHint: destructive,
  idempotentHint: idempotent,
  openWorldHint: openWorld,
})

export const MCP_TOOLS: readonly { name: string; operationId: string; annotations: ToolAnnotations }[] = [
  { name: 'track_parcel', operationId: 'subscribe', annotations: writes(true, true) },
  { name: 'get_parcel', operationId: 'getTask', annotations: READS },
  { name: 'list_parcels', operationId: 'listTasks', annotations: READS },
  { name: 'subscribe_parcels', operationId: 'subscribeBatch', annotations: writes(true, true) },
  { name: 'refresh_parcel', operationId: 'refreshTask', annotations: writes(false, true) },
  { name: 'stop_parcel', operationId: 'stopTask', annotations: writes(true, false) },
  { name: 'delete_parcel', operationId: 'deleteTask', annotations: writes(true, false, true) },
  { name: 'detect_carrier', operationId: 'detectCarrier', annotations: READS },
  { name: 'list_carriers', operationId: 'listCarriers', annotations: READS },
  { name: 'list_webhook_deliveries', operationId: 'listTaskWebhooks', annotations: READS },
  { name: 'redeliver_webhook', operationId: 'redeliverTaskWebhook', annotations: writes(false, true) },
]
