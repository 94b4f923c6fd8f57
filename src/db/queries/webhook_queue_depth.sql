-- webhook_queue_depth: run by src/db/webhook-queue.repository.ts

SELECT
  status,
  count(*)::int AS n
FROM
  webhook_deliveries
WHERE
  status IN ('pending', 'retry_wait', 'sending')
GROUP BY
  status;
