-- endpoint_fail_waiting: run by src/db/webhook-endpoint.repository.ts

UPDATE deliveries
SET
  status = 'failed',
  next_attempt_at = NULL,
  error_message = 'endpoint disabled',
  updated_at = now()
WHERE
  endpoint_id = $1
  AND status IN ('pending', 'retry_wait');
