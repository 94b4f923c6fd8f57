-- recipient_address_suppress: run by src/db/recipient.repository.ts

INSERT INTO
  recipient_addresses (user_id, channel, address_hash, token, language, suppressed_at, suppressed_reason)
VALUES
  ($1, $2, $3, $5, $6, now(), $4)
ON CONFLICT (user_id, channel, address_hash) DO UPDATE
SET
  suppressed_at = COALESCE(recipient_addresses.suppressed_at, now()),
  suppressed_reason = COALESCE(recipient_addresses.suppressed_reason, EXCLUDED.suppressed_reason);
