import type pg from 'pg'
import { eventsViewOf } from '../src/db/events-view'

/**
 * One user's tasks as a mature account has them (the query and list figures read them): 60 %
 * FedEx, 40 % uParcel; 75 % delivered, 15 % in transit, 6 % pending, 2 % exception, 1 % returned,
 * 1 % expired, the terminal ones inactive; every other task with a reference of its own; created
 * a minute apart, changed at half that pace; ten events each; the ones past pending with the
 * webhook that said so, delivered.
 */
export async function seed(client: pg.Client, userId: number, tasks: number, prefix: string) {
  for (let from = 1; from <= tasks; from += 200_000) {
    const to = Math.min(tasks, from + 199_999)
    const { rows: ids } = await client.query<{ min: string; max: string }>(
      `WITH t AS (INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, external_reference_no, standard_status, milestone,
                                            created_at, updated_at, inactive_since)
                  SELECT $1, CASE WHEN g % 10 < 6 THEN 'FEDEX' ELSE 'UPARCEL' END, $2 || g, 'https://a.example/',
                         CASE WHEN g % 2 = 0 THEN $2 || 'order-' || g ELSE '' END, s.status,
                         CASE WHEN s.status = 'in_transit' AND g % 5 = 0 THEN 'out_for_delivery' ELSE s.status END,
                         now() - make_interval(mins => 2000000 - g), now() - make_interval(mins => (2000000 - g) / 2),
                         CASE WHEN s.status IN ('delivered', 'returned', 'expired') THEN now() - make_interval(mins => (2000000 - g) / 2) END
                    FROM generate_series($3::int, $4::int) g
                   CROSS JOIN LATERAL (SELECT CASE WHEN g % 100 < 75 THEN 'delivered' WHEN g % 100 < 90 THEN 'in_transit' WHEN g % 100 < 96 THEN 'pending'
                                                   WHEN g % 100 < 98 THEN 'exception' WHEN g % 100 < 99 THEN 'returned' ELSE 'expired' END AS status) s
                  RETURNING id)
       SELECT min(id), max(id) FROM t`,
      [userId, prefix, from, to],
    )
    await client.query(
      `INSERT INTO tracking_events (task_id, event_key, event_time, event_code, status, status_info, description, city, country)
       SELECT t, 'k' || e, now() - make_interval(hours => e), 'AR', 'in_transit', 'In transit', 'Arrived at FedEx location', 'MEMPHIS', 'US'
         FROM generate_series($1::bigint, $2::bigint) t, generate_series(1, 10) e`,
      [ids[0]!.min, ids[0]!.max],
    )
    // Active tasks are due in a day: the refresh figures that follow leave them be.
    await client.query(`UPDATE task_schedule SET next_refresh_at = now() + interval '1 day' WHERE task_id BETWEEN $1 AND $2 AND next_refresh_at IS NOT NULL`, [
      ids[0]!.min,
      ids[0]!.max,
    ])
    // As the refresh would leave them: the events kept ready on each task.
    await client.query(`UPDATE tracking_tasks t SET events_view = ${eventsViewOf('t.id')} WHERE t.id BETWEEN $1 AND $2`, [ids[0]!.min, ids[0]!.max])
    // Each task that left pending told its callback so, once and successfully: the webhook a
    // page's latestWebhook shows.
    await client.query(
      `INSERT INTO deliveries (task_id, user_id, webhook_id, payload, status, attempt_count, last_attempt_at, response_status_code, created_at, updated_at)
       SELECT t.id, t.user_id, 'msg_seed_' || t.id, '{}', 'success', 1, t.updated_at, 200, t.updated_at, t.updated_at
         FROM tracking_tasks t WHERE t.id BETWEEN $1 AND $2 AND t.standard_status <> 'pending'`,
      [ids[0]!.min, ids[0]!.max],
    )
  }
  // As a mature database is: vacuumed. Left to autovacuum, ten million new events kept one core
  // busy through the figures that followed (the list lost a fifth of its pages a second).
  await client.query('VACUUM ANALYZE')
}
