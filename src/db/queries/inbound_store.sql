-- inbound_store: run by src/db/inbound.repository.ts

INSERT INTO
  inbound_pushes (source, digest, body)
VALUES
  ($1, $2, $3)
ON CONFLICT ON CONSTRAINT inbound_pushes_once DO NOTHING
RETURNING
  id;
