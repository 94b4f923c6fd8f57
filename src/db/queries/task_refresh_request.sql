-- task_refresh_request: run by src/db/task-lifecycle.repository.ts

WITH
  target AS (
    SELECT
      id,
      refresh_requested_at
    FROM
      tracking_tasks
    WHERE
      user_id = $1
      AND id = $2
    FOR UPDATE
  ),
  requested AS (
    UPDATE tracking_tasks t
    SET
      refresh_requested_at = now(),
      stopped_at = NULL,
      inactive_since = NULL,
      -- The next fetch is decided afresh, even if the carrier says what it said before.
      answer_fingerprint = NULL,
      last_new_event_at = CASE
        WHEN t.standard_status = 'expired' THEN now()
        ELSE t.last_new_event_at
      END,
      updated_at = CASE
        WHEN t.inactive_since IS NOT NULL THEN now()
        ELSE t.updated_at
      END
    FROM
      target
    WHERE
      t.id = target.id
      AND (
        target.refresh_requested_at IS NULL
        OR target.refresh_requested_at <= now() - make_interval(secs => $3)
      )
    RETURNING
      t.id
  ),
  scheduled AS (
    UPDATE task_schedule s
    SET
      next_refresh_at = now(),
      refresh_failures = 0
    FROM
      requested
    WHERE
      s.task_id = requested.id
    RETURNING
      s.next_refresh_at
  )
SELECT
  EXISTS (
    SELECT
      1
    FROM
      requested
  ) AS requested,
  (
    SELECT
      next_refresh_at
    FROM
      scheduled
  ) AS next_check_at,
  CEIL(
    EXTRACT(
      EPOCH
      FROM
        target.refresh_requested_at + make_interval(secs => $3) - now()
    )
  )::int AS wait_seconds
FROM
  target;
