-- console_users_with_failed: run by src/db/console.repository.ts

SELECT
  u.id
FROM
  api_users u
WHERE
  EXISTS (
    SELECT
      1
    FROM
      deliveries d
    WHERE
      d.user_id = u.id
      AND d.status = 'failed'
      AND d.created_at >= $1
      AND d.created_at < $2
  )
ORDER BY
  u.id;
