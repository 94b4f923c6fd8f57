-- recipient_address_known: run by src/db/recipient.repository.ts

INSERT INTO
  recipient_addresses (user_id, channel, address_hash, token, language)
VALUES
  ($1, $2, $3, $4, $5)
ON CONFLICT (user_id, channel, address_hash) DO UPDATE
SET
  language = EXCLUDED.language;
