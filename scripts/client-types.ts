import { writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript'

/** The client package's types (client/src/api.ts): openapi-typescript's output for the document, webhooks included. */
export async function clientTypes(document: object): Promise<string> {
  return `${COMMENT_HEADER}${astToString(await openapiTS(document as never))}`
}

/** `npm run client:types`: writes client/src/api.ts from the document the service serves. */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { serviceDocument } = await import('./service-document')
  const out = new URL('../client/src/api.ts', import.meta.url)
  writeFileSync(out, await clientTypes(await serviceDocument()))
  console.log(`wrote ${out.pathname}`)
}
