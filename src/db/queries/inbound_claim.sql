-- inbound_claim: run by src/db/inbound.repository.ts

UPDATE inbound_pushes p
SET
  lease_until = now() + make_interval(secs => $2::float8 / 1000),
  attempts = p.attempts + 1
FROM
  (
    SELECT
      id
    FROM
      inbound_pushes
    WHERE
      applied_at IS NULL
      AND (
        lease_until IS NULL
        OR lease_until <= now()
      )
    ORDER BY
      id
    LIMIT
      $1
    FOR UPDATE
      SKIP LOCKED
  ) AS waiting
WHERE
  p.id = waiting.id
RETURNING
  p.id,
  p.source,
  p.body;
