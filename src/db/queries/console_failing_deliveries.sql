-- console_failing_deliveries: run by src/db/console.repository.ts

SELECT
  d.id,
  d.user_id,
  u.name AS user_name,
  d.task_id,
  d.webhook_id,
  d.event_type,
  d.status,
  d.attempt_count,
  d.created_at,
  COALESCE(a.error_message, '') AS last_error,
  COALESCE(a.response_status_code, 0) AS last_status_code,
  -- A message's address is the customer's: named by its channel, never shown.
  CASE
    WHEN d.target = 'recipient' THEN 'the customer, by ' || d.channel
    ELSE COALESCE(
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
      END,
      ''
    )
  END AS target_url
FROM
  (
    SELECT
      *
    FROM
      deliveries
    WHERE
      status = 'retry_wait'
    UNION ALL
    SELECT
      f.*
    FROM
      api_users fu
      CROSS JOIN LATERAL (
        SELECT
          *
        FROM
          deliveries
        WHERE
          user_id = fu.id
          AND status = 'failed'
          AND created_at >= now() - interval '24 hours'
        OFFSET
          0
      ) f
  ) d
  JOIN api_users u ON u.id = d.user_id
  LEFT JOIN LATERAL (
    SELECT
      error_message,
      response_status_code
    FROM
      delivery_attempts
    WHERE
      delivery_id = d.id
    ORDER BY
      attempt_number DESC
    LIMIT
      1
  ) a ON true
ORDER BY
  d.created_at DESC,
  d.id DESC
LIMIT
  $1;
