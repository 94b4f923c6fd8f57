import { writeFileSync } from 'node:fs'
import { loadConfig } from '../src/config/config'
import { connectDatabase } from '../src/db/database'
import { buildApp } from '../src/http/app'
import { createServices } from '../src/main/container'

/**
 * `npm run openapi [-- out.json]`: writes the OpenAPI document the service serves at
 * /openapi.json with every optional part on (the back office, MCP), without a database (the document needs none; the pool never connects).
 */
const out = process.argv[2] ?? 'openapi.json'
const config = loadConfig({})
const db = connectDatabase('postgresql://nobody@127.0.0.1:1/none', 'postgres', { poolSize: 1, publicBaseUrl: config.publicBaseUrl })
const app = await buildApp({ services: createServices(db, config), adminToken: 'document-the-back-office', mcp: true })
await app.ready()
writeFileSync(out, `${JSON.stringify(app.swagger(), null, 2)}\n`)
await app.close()
await db.close()
console.log(`wrote ${out}`)
