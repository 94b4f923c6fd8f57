-- recipient_address_by_token: run by src/db/recipient.repository.ts

SELECT
  user_id,
  channel,
  language,
  suppressed_at IS NOT NULL AS suppressed
FROM
  recipient_addresses
WHERE
  token = $1;
