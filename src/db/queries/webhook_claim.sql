-- webhook_claim: run by src/db/webhook-queue.repository.ts

WITH
  due AS (
    SELECT
      d.id,
      d.task_id,
      d.user_id,
      d.endpoint_id,
      d.next_attempt_at
    FROM
      webhook_deliveries d
    WHERE
      d.status IN ('pending', 'retry_wait')
      AND d.next_attempt_at <= now()
      AND (
        d.endpoint_id IS NULL
        OR EXISTS (
          SELECT
          FROM
            webhook_endpoints e
          WHERE
            e.id = d.endpoint_id
            AND e.enabled
        )
      )
      AND (
        cardinality($4::text[]) = 0
        OR lower(
          substring(
            COALESCE(
              (
                SELECT
                  e.url
                FROM
                  webhook_endpoints e
                WHERE
                  e.id = d.endpoint_id
              ),
              (
                SELECT
                  t.callback_url
                FROM
                  tracking_tasks t
                WHERE
                  t.id = d.task_id
              )
            )
            from
              '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?(\[[0-9A-Fa-f:.]*\]|[^:/?#]*)'
          )
        ) <> ALL ($4::text[])
      )
    ORDER BY
      d.next_attempt_at
    LIMIT
      $8
    FOR UPDATE
      SKIP LOCKED
  ),
  hosted AS (
    SELECT
      d.id,
      d.user_id,
      d.endpoint_id,
      d.next_attempt_at,
      target.url,
      lower(
        substring(
          target.url
          from
            '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?(\[[0-9A-Fa-f:.]*\]|[^:/?#]*)'
        )
      ) AS host
    FROM
      due d
      CROSS JOIN LATERAL (
        SELECT
          COALESCE(
            (
              SELECT
                e.url
              FROM
                webhook_endpoints e
              WHERE
                e.id = d.endpoint_id
            ),
            (
              SELECT
                t.callback_url
              FROM
                tracking_tasks t
              WHERE
                t.id = d.task_id
            )
          ) AS url
      ) target
  ),
  picked AS (
    SELECT
      ranked.*
    FROM
      (
        SELECT
          *,
          row_number() OVER (
            PARTITION BY
              host
            ORDER BY
              next_attempt_at
          ) AS nth
        FROM
          hosted
      ) ranked
      LEFT JOIN unnest($6::text[], $7::int[]) AS r (host, room) ON r.host = ranked.host
    WHERE
      ranked.nth <= COALESCE(r.room, $3)
    ORDER BY
      ranked.next_attempt_at
    LIMIT
      $1
  ),
  signed AS (
    SELECT
      p.id,
      p.url,
      p.host,
      COALESCE(e.secret, u.webhook_secret) AS secret,
      CASE
        WHEN e.id IS NOT NULL THEN CASE
          WHEN e.previous_secret_expires_at > now() THEN e.previous_secret
        END
        WHEN u.previous_webhook_secret_expires_at > now() THEN u.previous_webhook_secret
      END AS previous_secret
    FROM
      picked p
      JOIN api_users u ON u.id = p.user_id
      LEFT JOIN webhook_endpoints e ON e.id = p.endpoint_id
  )
UPDATE webhook_deliveries d
SET
  status = 'sending',
  lease_owner = $5,
  lease_until = now() + make_interval(secs => $2::float8 / 1000),
  attempt_started_at = now(),
  updated_at = now()
FROM
  signed p
WHERE
  d.id = p.id
RETURNING
  d.id,
  d.task_id,
  d.webhook_id,
  d.payload::text AS payload,
  p.url,
  p.host,
  d.attempt_count,
  d.cycle_start_attempt,
  p.secret,
  p.previous_secret;
