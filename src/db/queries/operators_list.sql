-- operators_list: run by src/db/operator.repository.ts

SELECT
  o.id,
  o.email,
  o.role,
  o.created_at,
  o.disabled_at,
  (
    SELECT
      count(*)::int
    FROM
      console_sessions s
    WHERE
      s.operator_id = o.id
      AND s.expires_at > now()
  ) AS sessions
FROM
  operators o
ORDER BY
  o.id;
