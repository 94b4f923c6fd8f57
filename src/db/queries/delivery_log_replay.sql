-- delivery_log_replay: run by src/db/delivery-log.repository.ts

WITH
  picked AS (
    SELECT
      d.id
    FROM
      deliveries d
    WHERE
      d.user_id = $1
      AND d.status = 'failed'
      AND d.channel = 'webhook'
      AND d.created_at >= $2
      AND d.created_at < $3
      AND (
        $4::bigint IS NULL
        OR d.endpoint_id = $4
      )
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
    ORDER BY
      d.created_at,
      d.id
    LIMIT
      $5
    FOR UPDATE OF
      d SKIP LOCKED
  )
UPDATE deliveries d
SET
  status = 'pending',
  next_attempt_at = now(),
  cycle_start_attempt = d.attempt_count,
  updated_at = now()
FROM
  picked
WHERE
  d.id = picked.id
RETURNING
  d.id;
