-- inbound_claim: run by src/db/inbound.repository.ts

SELECT
  id,
  source,
  body
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
  SKIP LOCKED;
