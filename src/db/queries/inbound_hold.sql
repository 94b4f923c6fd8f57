-- inbound_hold: run by src/db/inbound.repository.ts

UPDATE inbound_pushes
SET
  lease_until = now() + make_interval(secs => $2::float8 / 1000),
  attempts = attempts + 1
WHERE
  id = ANY ($1::bigint[]);
