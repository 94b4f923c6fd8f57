-- recipient_addresses_known: run by src/db/recipient.repository.ts

INSERT INTO
  recipient_addresses (user_id, channel, address_hash, token, language)
SELECT
  $1,
  'email',
  a.hash,
  a.token,
  a.language
FROM
  unnest($2::text[], $3::text[], $4::text[]) AS a (hash, token, language)
ON CONFLICT (user_id, channel, address_hash) DO UPDATE
SET
  language = EXCLUDED.language;
