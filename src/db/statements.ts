/**
 * Every statement the service runs, by name, so that each can be read in review as plain SQL:
 * `npm run queries` writes them to src/db/queries/<name>.sql, and a test fails when those files
 * and the code disagree (statements.test.ts; it also refuses a statement written inline at a
 * call site). A statement is a module-level constant made with its module's `sql`
 * (`statementsOf(import.meta.url)`); one whose text depends on the request (a list page's filters)
 * is a family made with `sql.family`, whose file shows one text per kind of request.
 */

export interface Example {
  /** What kind of request gives this text. */
  label: string
  text: string
}

export interface Registered {
  module: string
  texts: Example[]
}

const REGISTERED = new Map<string, Registered>()

function register(name: string, module: string, texts: Example[]): void {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`statement name ${name}: lower case, digits and _ only`)
  const known = REGISTERED.get(name)
  if (known && (known.module !== module || JSON.stringify(known.texts) !== JSON.stringify(texts))) throw new Error(`two statements are named ${name}`)
  REGISTERED.set(name, { module, texts })
}

/**
 * The `sql` of a module (its import.meta.url): `sql(name, text)` registers a statement and returns
 * its text; `sql.family(name, examples)` registers a statement whose text depends on the request,
 * with its texts for the kinds of request `examples` lists.
 */
export function statementsOf(module: string) {
  const sql = (name: string, text: string): string => {
    register(name, module, [{ label: '', text }])
    return text
  }
  sql.family = (name: string, examples: () => Example[]): void => register(name, module, examples())
  return sql
}

/** Every statement registered by the modules imported so far, by name. */
export function registeredStatements(): ReadonlyMap<string, Readonly<Registered>> {
  return REGISTERED
}
