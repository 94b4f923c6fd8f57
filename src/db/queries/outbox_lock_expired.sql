-- outbox_lock_expired: run by src/db/outbox.repository.ts

SELECT
  id,
  attempt_count + 1 - cycle_start_attempt AS attempt_in_cycle
FROM
  deliveries
WHERE
  status = 'sending'
  AND lease_until < now()
  AND channel = $1
ORDER BY
  lease_until
LIMIT
  $2
FOR UPDATE
  SKIP LOCKED;
