import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { format } from 'sql-formatter'
import { registeredStatements, type Registered } from '../src/db/statements'

/**
 * Each statement's file (src/db/queries/<name>.sql) by file name: every module of src/db is
 * imported, so that each registers its statements (src/db/statements.ts), and each text is laid
 * out by one formatter, whatever its indentation in the code. For `npm run queries` and its test.
 */

export const QUERIES_DIR = fileURLToPath(new URL('../src/db/queries/', import.meta.url))
const DB_DIR = fileURLToPath(new URL('../src/db/', import.meta.url))

export async function statementFiles(): Promise<Map<string, string>> {
  for (const file of readdirSync(DB_DIR).sort()) {
    if (file.endsWith('.ts') && !file.endsWith('.test.ts')) await import(pathToFileURL(join(DB_DIR, file)).href)
  }
  return new Map(
    [...registeredStatements()].sort(([a], [b]) => a.localeCompare(b)).map(([name, registered]) => [`${name}.sql`, statementFile(name, registered)]),
  )
}

function statementFile(name: string, { module, texts }: Registered): string {
  const where = module.replace(/^.*\/src\//, 'src/')
  const statements = texts.map(({ label, text }) => `${label ? `-- ${label}\n` : ''}${layout(text)};\n`)
  return `-- ${name}: run by ${where}\n\n${statements.join('\n')}`
}

function layout(text: string): string {
  return format(text, { language: 'postgresql', keywordCase: 'preserve', paramTypes: { numbered: ['$'] }, tabWidth: 2, expressionWidth: 100 })
}
