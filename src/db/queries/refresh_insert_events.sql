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
    milestone
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
    $14::text[]
  )
ON CONFLICT (task_id, event_key) DO NOTHING
RETURNING
  task_id,
  event_key;
