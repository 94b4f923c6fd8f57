import { writeFileSync } from 'node:fs'
import { serviceDocument } from './service-document'

/** `npm run openapi [-- out.json]`: writes the OpenAPI document the service serves at /openapi.json. */
const out = process.argv[2] ?? 'openapi.json'
writeFileSync(out, `${JSON.stringify(await serviceDocument(), null, 2)}\n`)
console.log(`wrote ${out}`)
