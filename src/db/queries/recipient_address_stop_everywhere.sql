-- recipient_address_stop_everywhere: run by src/db/recipient.repository.ts

UPDATE recipient_addresses
SET
  suppressed_at = now(),
  suppressed_reason = $3
WHERE
  channel = $1
  AND address_hash = $2
  AND suppressed_at IS NULL
RETURNING
  user_id;
