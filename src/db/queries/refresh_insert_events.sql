-- refresh_insert_events: run by src/db/refresh-writes.ts

INSERT INTO
  tracking_events (
    task_id,
    event_key,
    event_time,
    event_code,
    status,
    status_info,
    description,
    exception_description,
    country,
    state,
    city,
    postal_code,
    address,
    milestone,
    utc_offset
  )
SELECT
  *
FROM
  unnest(
    $1::bigint[],
    $2::text[],
    $3::timestamptz[],
    $4::text[],
    $5::text[],
    $6::text[],
    $7::text[],
    $8::text[],
    $9::text[],
    $10::text[],
    $11::text[],
    $12::text[],
    $13::text[],
    $14::text[],
    $15::text[]
  )
  -- A stored event is left as it is, but for an offset it was stored without and now has
  -- (an event's identity leaves the offset out): written once, not counted as new.
ON CONFLICT (task_id, event_key) DO UPDATE
SET
  utc_offset = EXCLUDED.utc_offset
WHERE
  tracking_events.utc_offset IS NULL
  AND EXCLUDED.utc_offset IS NOT NULL
RETURNING
  task_id,
  event_key,
  xmax = 0 AS inserted;
