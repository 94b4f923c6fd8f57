-- inbound_prune: run by src/db/inbound.repository.ts

DELETE FROM inbound_pushes
WHERE
  applied_at < now() - interval '7 days';
