-- audit_purge: run by src/db/audit.repository.ts

DELETE FROM audit_log
WHERE
  id IN (
    SELECT
      id
    FROM
      audit_log
    WHERE
      at < now() - make_interval(days => $1)
    ORDER BY
      at
    LIMIT
      $2
  )
RETURNING
  id;
