// Creates or drops a throw-away database on the machine's PostgreSQL for CI.
// usage: node scripts/ci-database.mjs create|drop <name>
// Prints the new database's URL on create; fails loudly when PostgreSQL is unreachable.
import pg from 'pg'

const [action, name] = process.argv.slice(2)
const server = process.env.CI_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres'
if (!action || !['create', 'drop'].includes(action) || !/^[a-z_][a-z0-9_]*$/.test(name ?? '')) {
  console.error('usage: node scripts/ci-database.mjs create|drop <name>')
  process.exit(2)
}
const client = new pg.Client({ connectionString: server, connectionTimeoutMillis: 5000 })
try {
  await client.connect()
} catch (error) {
  console.error(`PostgreSQL is unreachable at ${server}: ${error instanceof Error ? error.message : String(error)}`)
  console.error('Start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start')
  process.exit(1)
}
if (action === 'create') {
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await client.query(`CREATE DATABASE ${name}`)
  const url = new URL(server)
  url.pathname = `/${name}`
  console.log(url.toString())
} else {
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
}
await client.end()
