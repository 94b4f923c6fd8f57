-- webhook_history: run by src/db/webhook-history.repository.ts

SELECT
  true AS owned,
  (
    SELECT
      json_build_object(
        'webhookId',
        d.webhook_id,
        'type',
        d.event_type,
        'status',
        d.status,
        'attemptCount',
        d.attempt_count,
        'nextRetryAt',
        CASE
          WHEN d.status = 'retry_wait' THEN d.next_attempt_at
        END,
        'lastAttemptAt',
        d.last_attempt_at,
        'responseStatusCode',
        d.response_status_code,
        'errorMessage',
        d.error_message,
        'createdAt',
        d.created_at,
        'attempts',
        COALESCE(
          (
            SELECT
              json_agg(
                json_build_object(
                  'attemptNumber',
                  a.attempt_number,
                  'startedAt',
                  a.started_at,
                  'durationMs',
                  a.duration_ms,
                  'responseStatusCode',
                  a.response_status_code,
                  'errorMessage',
                  a.error_message,
                  'responseBody',
                  a.response_body_excerpt
                )
                ORDER BY
                  a.attempt_number
              )
            FROM
              delivery_attempts a
            WHERE
              a.delivery_id = d.id
          ),
          '[]'::json
        )
      )
  ) AS record
FROM
  tracking_tasks t
  LEFT JOIN LATERAL (
    SELECT
      *
    FROM
      deliveries d
    WHERE
      d.task_id = t.id
      AND d.target = 'callback'
    ORDER BY
      d.id DESC
    LIMIT
      $3
  ) d ON true
WHERE
  t.id = $2
  AND t.user_id = $1
ORDER BY
  d.id DESC;
