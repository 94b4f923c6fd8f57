-- outbox_release: run by src/db/outbox.repository.ts

UPDATE deliveries
SET
  status = CASE
    WHEN attempt_count = cycle_start_attempt THEN 'pending'
    ELSE 'retry_wait'
  END,
  next_attempt_at = $3,
  lease_owner = NULL,
  lease_until = NULL,
  updated_at = now()
WHERE
  id = $1
  AND lease_owner = $2
  AND status = 'sending'
RETURNING
  id;
