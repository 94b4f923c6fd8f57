-- recipient_address_start_everywhere: run by src/db/recipient.repository.ts

UPDATE recipient_addresses
SET
  suppressed_at = NULL,
  suppressed_reason = NULL
WHERE
  channel = $1
  AND address_hash = $2
  AND suppressed_reason = $3
RETURNING
  user_id;
