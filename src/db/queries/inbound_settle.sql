-- inbound_settle: run by src/db/inbound.repository.ts

UPDATE inbound_pushes p
SET
  applied_at = now(),
  outcome = o.outcome,
  lease_until = NULL,
  attempts = p.attempts + 1,
  body = ''::bytea
FROM
  unnest($1::bigint[], $2::text[]) AS o (id, outcome)
WHERE
  p.id = o.id;
