import { loadConfig } from '../src/config/config'
import { connectDatabase } from '../src/db/database'
import { buildApp } from '../src/http/app'
import { createServices } from '../src/main/container'

/**
 * The OpenAPI document the service serves at /openapi.json, with every optional part on (the back
 * office, MCP), made without a database (the document needs none; the pool never connects).
 */
export async function serviceDocument(): Promise<object> {
  const config = loadConfig({})
  const db = connectDatabase('postgresql://nobody@127.0.0.1:1/none', 'postgres', { poolSize: 1, publicBaseUrl: config.publicBaseUrl })
  const app = await buildApp({ services: createServices(db, config), adminToken: 'document-the-back-office', mcp: true })
  await app.ready()
  const document = app.swagger()
  await app.close()
  await db.close()
  return document
}
