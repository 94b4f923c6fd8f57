-- recipient_address_suppress_by_token: run by src/db/recipient.repository.ts

UPDATE recipient_addresses
SET
  suppressed_at = COALESCE(suppressed_at, now()),
  suppressed_reason = COALESCE(suppressed_reason, $2)
WHERE
  token = $1
RETURNING
  user_id,
  channel,
  language,
  true AS suppressed;
