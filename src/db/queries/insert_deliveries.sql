-- insert_deliveries: run by src/db/outbox-writes.ts

INSERT INTO
  webhook_deliveries (task_id, user_id, endpoint_id, webhook_id, event_type, payload, status, next_attempt_at)
SELECT
  task_id,
  user_id,
  endpoint_id,
  webhook_id,
  event_type,
  payload::json,
  'pending',
  now()
FROM
  unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], string_to_array($6, E'\n')) AS d (task_id, user_id, endpoint_id, webhook_id, event_type, payload);
