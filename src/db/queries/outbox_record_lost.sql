-- outbox_record_lost: run by src/db/outbox.repository.ts

WITH
  reaped AS (
    UPDATE deliveries d
    SET
      attempt_count = d.attempt_count + 1,
      last_attempt_at = COALESCE(d.attempt_started_at, now()),
      response_status_code = 0,
      error_message = $4,
      status = v.status,
      next_attempt_at = v.next_attempt_at,
      lease_owner = NULL,
      lease_until = NULL,
      attempt_started_at = NULL,
      updated_at = now()
    FROM
      unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS v (id, status, next_attempt_at)
    WHERE
      d.id = v.id
    RETURNING
      d.id,
      d.attempt_count,
      d.last_attempt_at
  )
INSERT INTO
  delivery_attempts (delivery_id, attempt_number, started_at, duration_ms, error_message)
SELECT
  id,
  attempt_count,
  last_attempt_at,
  (
    EXTRACT(
      EPOCH
      FROM
        now() - last_attempt_at
    ) * 1000
  )::int,
  $4
FROM
  reaped
ON CONFLICT (delivery_id, attempt_number) DO NOTHING;
