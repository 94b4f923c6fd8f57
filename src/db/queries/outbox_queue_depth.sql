-- outbox_queue_depth: run by src/db/outbox.repository.ts

SELECT
  status,
  count(*)::int AS n
FROM
  deliveries
WHERE
  channel = $1
  AND status IN ('pending', 'retry_wait', 'sending')
GROUP BY
  status;
