-- audit_list: run by src/db/audit.repository.ts

SELECT
  id,
  at,
  actor_kind,
  operator_id,
  actor,
  action,
  target_kind,
  target_id,
  address,
  outcome,
  detail
FROM
  audit_log
WHERE
  (
    $1::bigint IS NULL
    OR operator_id = $1
  )
  AND (
    $2::text IS NULL
    OR actor_kind = $2
  )
  AND (
    $3::text IS NULL
    OR action = $3
  )
  AND (
    $4::text IS NULL
    OR target_kind = $4
  )
  AND (
    $5::text IS NULL
    OR target_id = $5
  )
  AND (
    $6::timestamptz IS NULL
    OR at >= $6
  )
  AND (
    $7::timestamptz IS NULL
    OR at < $7
  )
  AND (
    $8::bigint IS NULL
    OR id < $8
  )
ORDER BY
  id DESC
LIMIT
  $9;
