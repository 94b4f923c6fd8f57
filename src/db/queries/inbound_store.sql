-- inbound_store: run by src/db/inbound.repository.ts

INSERT INTO
  inbound_pushes (source, digest, body)
SELECT
  *
FROM
  unnest($1::text[], $2::text[], $3::bytea[])
ON CONFLICT ON CONSTRAINT inbound_pushes_once DO NOTHING
RETURNING
  source,
  digest;
