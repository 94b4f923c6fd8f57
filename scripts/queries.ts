import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { QUERIES_DIR, statementFiles } from './statement-files'

/** `npm run queries`: writes every statement the service runs to src/db/queries/<name>.sql (src/db/statements.ts). */
mkdirSync(QUERIES_DIR, { recursive: true })
const files = await statementFiles()
for (const file of readdirSync(QUERIES_DIR)) if (file.endsWith('.sql') && !files.has(file)) rmSync(join(QUERIES_DIR, file))
for (const [file, text] of files) writeFileSync(join(QUERIES_DIR, file), text)
console.log(`${files.size} statements in src/db/queries/`)
