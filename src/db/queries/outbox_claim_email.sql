-- outbox_claim_email: run by src/db/outbox.repository.ts

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
      d.channel = 'email'
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
        OR 'smtp' <> ALL ($4::text[])
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
      'smtp' AS gate_key
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
      p.user_id AS recipient_user,
      r.language AS recipient_language,
      u.notification_settings -> 'email' ->> 'fromName' AS from_name,
      a.suppressed_at IS NOT NULL AS suppressed,
      t.page_token AS page_token,
      r.name AS recipient_name,
      u.notification_settings -> 'email' ->> 'replyTo' AS reply_to,
      a.token AS unsubscribe_token
    FROM
      picked p
      JOIN api_users u ON u.id = p.user_id
      JOIN tracking_tasks t ON t.id = p.task_id
      LEFT JOIN task_recipients r ON r.task_id = p.task_id
      LEFT JOIN recipient_addresses a ON a.user_id = p.user_id
      AND a.channel = 'email'
      AND a.address_hash = r.email_hash
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
  p.recipient_user,
  p.recipient_language,
  p.from_name,
  p.suppressed,
  p.page_token,
  p.recipient_name,
  p.reply_to,
  p.unsubscribe_token;
