-- insert_deliveries: run by src/db/outbox-writes.ts

INSERT INTO
  deliveries (
    task_id,
    user_id,
    channel,
    target,
    endpoint_id,
    webhook_id,
    event_type,
    payload,
    trigger,
    status,
    next_attempt_at
  )
SELECT
  task_id,
  user_id,
  channel,
  target,
  endpoint_id,
  webhook_id,
  event_type,
  payload::json,
  trigger,
  'pending',
  now()
FROM
  unnest(
    $1::bigint[],
    $2::bigint[],
    $3::text[],
    $4::text[],
    $5::bigint[],
    $6::text[],
    $7::text[],
    string_to_array($8, E'\n'),
    $9::text[]
  ) AS d (task_id, user_id, channel, target, endpoint_id, webhook_id, event_type, payload, trigger)
ON CONFLICT (task_id, trigger, channel)
WHERE
  trigger IS NOT NULL DO NOTHING;
