-- outbox_claim_webhook: run by src/db/outbox.repository.ts

WITH
  due AS (
    SELECT
      d.id,
      d.task_id,
      d.user_id,
      d.target,
      d.channel,
      d.endpoint_id,
      d.next_attempt_at
    FROM
      deliveries d
    WHERE
      d.channel = 'webhook'
      AND d.status IN ('pending', 'retry_wait')
      AND d.next_attempt_at <= now()
      AND (
        d.target <> 'endpoint'
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
            CASE d.target
              WHEN 'callback' THEN (
                SELECT
                  t.callback_url
                FROM
                  tracking_tasks t
                WHERE
                  t.id = d.task_id
              )
              WHEN 'endpoint' THEN (
                SELECT
                  e.url
                FROM
                  webhook_endpoints e
                WHERE
                  e.id = d.endpoint_id
              )
              WHEN 'recipient' THEN (
                SELECT
                  CASE d.channel
                    WHEN 'sms' THEN r.phone
                    ELSE r.email
                  END
                FROM
                  task_recipients r
                WHERE
                  r.task_id = d.task_id
              )
            END
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
  gated AS (
    SELECT
      d.id,
      d.task_id,
      d.user_id,
      d.target,
      d.channel,
      d.endpoint_id,
      d.next_attempt_at,
      target.address,
      lower(
        substring(
          target.address
          from
            '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?(\[[0-9A-Fa-f:.]*\]|[^:/?#]*)'
        )
      ) AS gate_key
    FROM
      due d
      CROSS JOIN LATERAL (
        SELECT
          CASE d.target
            WHEN 'callback' THEN (
              SELECT
                t.callback_url
              FROM
                tracking_tasks t
              WHERE
                t.id = d.task_id
            )
            WHEN 'endpoint' THEN (
              SELECT
                e.url
              FROM
                webhook_endpoints e
              WHERE
                e.id = d.endpoint_id
            )
            WHEN 'recipient' THEN (
              SELECT
                CASE d.channel
                  WHEN 'sms' THEN r.phone
                  ELSE r.email
                END
              FROM
                task_recipients r
              WHERE
                r.task_id = d.task_id
            )
          END AS address
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
              gate_key
            ORDER BY
              next_attempt_at
          ) AS nth
        FROM
          gated
      ) ranked
      LEFT JOIN unnest($6::text[], $7::int[]) AS r (gate_key, room) ON r.gate_key = ranked.gate_key
    WHERE
      ranked.nth <= COALESCE(r.room, $3)
    ORDER BY
      ranked.next_attempt_at
    LIMIT
      $1
  ),
  detailed AS (
    SELECT
      p.id,
      p.address,
      p.gate_key,
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
UPDATE deliveries d
SET
  status = 'sending',
  lease_owner = $5,
  lease_until = now() + make_interval(secs => $2::float8 / 1000),
  attempt_started_at = now(),
  updated_at = now()
FROM
  detailed p
WHERE
  d.id = p.id
RETURNING
  d.id,
  d.task_id,
  d.webhook_id,
  d.payload::text AS payload,
  p.address,
  p.gate_key,
  d.attempt_count,
  d.cycle_start_attempt,
  p.secret,
  p.previous_secret;
