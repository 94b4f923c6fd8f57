-- task_move: run by src/db/carrier-changes.ts

WITH
  moved AS (
    UPDATE tracking_tasks t
    SET
      carrier_code = $2,
      standard_status = 'pending',
      milestone = 'pending',
      carrier_status = '',
      estimated_delivery_at = NULL,
      origin_address = DEFAULT,
      destination_address = DEFAULT,
      events_view = '[]',
      -- The expiry's clock starts again, as for a new task.
      last_new_event_at = now(),
      stopped_at = NULL,
      inactive_since = NULL,
      answer_fingerprint = NULL,
      proof_of_delivery = NULL,
      transit_started_at = NULL,
      first_estimated_delivery_at = NULL,
      passed_exception = false,
      transit_counted = false,
      predicted_delivery_at = NULL,
      prediction = NULL,
      updated_at = now()
    WHERE
      t.id = $1
    RETURNING
      t.*
  ),
  forgotten AS (
    DELETE FROM tracking_events e USING moved
    WHERE
      e.task_id = moved.id
  ),
  -- After the task's row (locked by the caller), as a refresh locks them.
  scheduled AS (
    UPDATE task_schedule s
    SET
      carrier_code = $2,
      next_refresh_at = now(),
      refresh_failures = 0,
      due_since = NULL
    FROM
      moved
    WHERE
      s.task_id = moved.id
    RETURNING
      s.*
  ),
  recorded AS (
    INSERT INTO
      carrier_changes (task_id, previous_carrier_code, carrier_code, reason)
    SELECT
      id,
      $3,
      $2,
      $4
    FROM
      moved
  )
SELECT
  count(*)
FROM
  scheduled;
