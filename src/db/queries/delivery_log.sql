-- delivery_log: run by src/db/delivery-log.repository.ts

-- the first page, every delivery
SELECT
  d.id,
  d.created_at::text AS sort_key,
  d.webhook_id,
  d.event_type,
  d.task_id,
  d.endpoint_id,
  d.status,
  d.attempt_count,
  d.created_at,
  d.last_attempt_at,
  CASE
    WHEN d.status = 'retry_wait' THEN d.next_attempt_at
  END AS next_retry_at,
  d.response_status_code,
  d.error_message
FROM
  deliveries d
WHERE
  d.user_id = $1
  AND d.channel = 'webhook'
ORDER BY
  d.created_at DESC,
  d.id DESC
LIMIT
  $2;

-- the next page of one status, type, endpoint and task in a window
SELECT
  d.id,
  d.created_at::text AS sort_key,
  d.webhook_id,
  d.event_type,
  d.task_id,
  d.endpoint_id,
  d.status,
  d.attempt_count,
  d.created_at,
  d.last_attempt_at,
  CASE
    WHEN d.status = 'retry_wait' THEN d.next_attempt_at
  END AS next_retry_at,
  d.response_status_code,
  d.error_message
FROM
  deliveries d
WHERE
  d.user_id = $1
  AND d.channel = 'webhook'
  AND d.status = $2
  AND d.event_type = $3
  AND d.endpoint_id = $4
  AND d.task_id = $5
  AND d.created_at >= $6
  AND d.created_at < $7
  AND (d.created_at, d.id) < ($8::timestamptz, $9::bigint)
ORDER BY
  d.created_at DESC,
  d.id DESC
LIMIT
  $10;
