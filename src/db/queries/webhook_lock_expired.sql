-- webhook_lock_expired: run by src/db/webhook-queue.repository.ts

SELECT
  id,
  attempt_count + 1 - cycle_start_attempt AS attempt_in_cycle
FROM
  webhook_deliveries
WHERE
  status = 'sending'
  AND lease_until < now()
ORDER BY
  lease_until
LIMIT
  $1
FOR UPDATE
  SKIP LOCKED;
