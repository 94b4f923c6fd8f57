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
      -- The change appended to the list as the full task writes it (compact, members in order).
      carrier_changes = (
        CASE
          WHEN t.carrier_changes IS NULL THEN '[' || c.change || ']'
          ELSE left(t.carrier_changes::text, -1) || ',' || c.change || ']'
        END
      )::json,
      updated_at = now()
    FROM
      (
        SELECT
          row_to_json(x)::text AS change
        FROM
          (
            SELECT
              $3::text AS "previousCarrierCode",
              $2::text AS "carrierCode",
              $4::text AS reason,
              to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "changedAt"
          ) x
      ) c
    WHERE
      t.id = $1
    RETURNING
      t.id
  ),
  forgotten AS (
    DELETE FROM tracking_events e USING moved
    WHERE
      e.task_id = moved.id
  )
  -- After the task's row (locked by the caller), as a refresh locks them.
UPDATE task_schedule s
SET
  carrier_code = $2,
  next_refresh_at = now(),
  refresh_failures = 0,
  due_since = NULL
FROM
  moved
WHERE
  s.task_id = moved.id;
