import { readFileSync } from 'node:fs'
import Fastify from 'fastify'
import pg from 'pg'

/**
 * The ceilings of the API benchmarks: a bare Fastify route doing one pg upsert, one doing one
 * primary-key read, one reading a tracking page's rows by its token, and one reading a user's newest 20 tasks (the list's first page: the same
 * indexes, the active and the inactive tasks' merged, the same rows, the full task's columns and
 * each one's newest callback delivery as pg parses them), on the same database as the
 * service. No validation, no auth, no envelope:
 * what this machine does with the same stack and nothing else.
 * env: CEILING_DATABASE_URL, PORT
 */
const pool = new pg.Pool({ connectionString: process.env.CEILING_DATABASE_URL, max: Number(process.env.CEILING_POOL ?? 10) })
await pool.query(`CREATE TABLE IF NOT EXISTS bench_ceiling (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, user_id bigint NOT NULL, carrier_code text NOT NULL,
  tracking_number text NOT NULL, callback_url text NOT NULL, external_reference_no text NOT NULL DEFAULT '',
  UNIQUE (user_id, carrier_code, tracking_number))`)
const app = Fastify({ logger: false })
app.post('/upsert', async (request) => {
  const body = request.body as { carrierCode: string; trackingNumber: string; callbackUrl: string }
  const { rows } = await pool.query(
    `INSERT INTO bench_ceiling (user_id, carrier_code, tracking_number, callback_url) VALUES (1, $1, $2, $3)
     ON CONFLICT (user_id, carrier_code, tracking_number) DO UPDATE SET callback_url = EXCLUDED.callback_url
     RETURNING id, (xmax = 0) AS created`,
    [body.carrierCode, body.trackingNumber, body.callbackUrl],
  )
  return rows[0]
})
app.get('/task', async (request) => {
  const { rows } = await pool.query('SELECT * FROM tracking_tasks WHERE id = $1', [Number((request.query as { id: string }).id)])
  return rows[0] ?? null
})
app.get('/page', async (request) => {
  const { rows } = await pool.query(
    `SELECT t.id, t.carrier_code, t.tracking_number, t.external_reference_no, t.callback_url, t.standard_status, t.milestone, t.carrier_status,
            t.estimated_delivery_at, t.origin_address, t.destination_address, t.inactive_since, t.stopped_at, t.created_at, t.updated_at,
            s.next_refresh_at, s.last_fetched_at, d.status, d.attempt_count, d.next_attempt_at, d.last_attempt_at, d.response_status_code, d.error_message
       FROM (SELECT id FROM (
               (SELECT id, created_at FROM tracking_tasks WHERE user_id = $1 AND inactive_since IS NULL ORDER BY created_at DESC, id DESC LIMIT 21)
               UNION ALL
               (SELECT id, created_at FROM tracking_tasks WHERE user_id = $1 AND inactive_since IS NOT NULL ORDER BY created_at DESC, id DESC LIMIT 21)
             ) newest ORDER BY created_at DESC, id DESC LIMIT 21) page
       JOIN tracking_tasks t ON t.id = page.id
       LEFT JOIN task_schedule s ON s.task_id = t.id
       LEFT JOIN LATERAL (
         SELECT * FROM deliveries d WHERE d.task_id = t.id AND d.endpoint_id IS NULL ORDER BY d.id DESC LIMIT 1) d ON true
      ORDER BY t.created_at DESC, t.id DESC`,
    [Number((request.query as { user: string }).user)],
  )
  return { items: rows.slice(0, 20) }
})
// The tracking page's bare query: the service's own statement (the task by its page token, its
// events newest first, its shop's branding), its row answered as pg parses it.
const PAGE_BY_TOKEN = readFileSync(new URL('../src/db/queries/page_by_token.sql', import.meta.url), 'utf8')
app.get('/tracking-page', async (request) => {
  const { rows } = await pool.query({ name: 'page_by_token', text: PAGE_BY_TOKEN, values: [(request.query as { token: string }).token] })
  return rows[0] ?? null
})
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
process.on(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
)
