import type { FastifyInstance } from 'fastify'
import { allComponents } from './common.schema'
// Every module that makes components, so that all of them exist before they are registered.
import './admin.schema'
import './health.schema'
import './notification.schema'
import './subscription.schema'
import './task.schema'
import './task-lifecycle.schema'
import './webhook.schema'
import './webhook-endpoint.schema'
import './webhook-event.schema'

/** Registers every named schema with Fastify: routes refer to them, the document lists them. */
export function registerComponents(app: FastifyInstance): void {
  for (const schema of allComponents()) app.addSchema(schema)
}
