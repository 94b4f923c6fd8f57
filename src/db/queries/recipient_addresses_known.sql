-- recipient_addresses_known: run by src/db/recipient.repository.ts

INSERT INTO
  recipient_addresses (user_id, channel, address_hash, token, language)
SELECT
  $1,
  a.channel,
  a.hash,
  a.token,
  a.language
FROM
  unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS a (channel, hash, token, language)
ON CONFLICT (user_id, channel, address_hash) DO UPDATE
SET
  language = EXCLUDED.language;
