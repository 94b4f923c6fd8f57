-- outbox_complete_many: run by src/db/outbox.repository.ts

WITH
  input AS (
    SELECT
      *
    FROM
      unnest(
        $1::bigint[],
        $2::text[],
        $3::text[],
        $4::timestamptz[],
        $5::timestamptz[],
        $6::int[],
        $7::text[],
        $8::int[],
        $9::text[],
        $10::text[]
      ) AS i (
        id,
        lease_owner,
        status,
        started_at,
        next_attempt_at,
        status_code,
        error,
        duration_ms,
        excerpt,
        provider_id
      )
  ),
  done AS (
    UPDATE deliveries d
    SET
      status = i.status,
      attempt_count = d.attempt_count + 1,
      last_attempt_at = i.started_at,
      next_attempt_at = i.next_attempt_at,
      response_status_code = i.status_code,
      error_message = i.error,
      provider_id = COALESCE(i.provider_id, d.provider_id),
      lease_owner = NULL,
      lease_until = NULL,
      attempt_started_at = NULL,
      updated_at = now()
    FROM
      input i
    WHERE
      d.id = i.id
      AND d.lease_owner = i.lease_owner
      AND d.status = 'sending'
    RETURNING
      d.id,
      d.attempt_count
  )
INSERT INTO
  delivery_attempts (
    delivery_id,
    attempt_number,
    started_at,
    duration_ms,
    response_status_code,
    error_message,
    response_body_excerpt
  )
SELECT
  done.id,
  done.attempt_count,
  i.started_at,
  i.duration_ms,
  i.status_code,
  i.error,
  i.excerpt
FROM
  done
  JOIN input i ON i.id = done.id
RETURNING
  delivery_id;
