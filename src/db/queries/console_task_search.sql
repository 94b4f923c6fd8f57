-- console_task_search: run by src/db/console.repository.ts

-- a tracking number or reference across users
SELECT
  t.id,
  t.user_id,
  u.name AS user_name,
  t.carrier_code,
  t.tracking_number,
  t.external_reference_no,
  t.standard_status,
  t.milestone,
  t.updated_at
FROM
  api_users u
  CROSS JOIN LATERAL (
    SELECT
      id
    FROM
      tracking_tasks
    WHERE
      user_id = u.id
      AND tracking_number = $2
    UNION
    SELECT
      id
    FROM
      tracking_tasks
    WHERE
      user_id = u.id
      AND external_reference_no = $2
      AND external_reference_no <> ''
  ) found
  JOIN tracking_tasks t ON t.id = found.id
WHERE
  true
ORDER BY
  t.id DESC
LIMIT
  $1;

-- a status and a carrier, after a task id
SELECT
  t.id,
  t.user_id,
  u.name AS user_name,
  t.carrier_code,
  t.tracking_number,
  t.external_reference_no,
  t.standard_status,
  t.milestone,
  t.updated_at
FROM
  tracking_tasks t
  JOIN api_users u ON u.id = t.user_id
WHERE
  true
  AND t.standard_status = $2
  AND t.carrier_code = $3
  AND t.id < $4
ORDER BY
  t.id DESC
LIMIT
  $1;

-- a milestone (the overview links to it)
SELECT
  t.id,
  t.user_id,
  u.name AS user_name,
  t.carrier_code,
  t.tracking_number,
  t.external_reference_no,
  t.standard_status,
  t.milestone,
  t.updated_at
FROM
  tracking_tasks t
  JOIN api_users u ON u.id = t.user_id
WHERE
  true
  AND t.milestone = $2
ORDER BY
  t.id DESC
LIMIT
  $1;

-- one user's tasks
SELECT
  t.id,
  t.user_id,
  u.name AS user_name,
  t.carrier_code,
  t.tracking_number,
  t.external_reference_no,
  t.standard_status,
  t.milestone,
  t.updated_at
FROM
  tracking_tasks t
  JOIN api_users u ON u.id = t.user_id
WHERE
  true
  AND t.user_id = $2
ORDER BY
  t.id DESC
LIMIT
  $1;

-- every task, newest first
SELECT
  t.id,
  t.user_id,
  u.name AS user_name,
  t.carrier_code,
  t.tracking_number,
  t.external_reference_no,
  t.standard_status,
  t.milestone,
  t.updated_at
FROM
  tracking_tasks t
  JOIN api_users u ON u.id = t.user_id
WHERE
  true
ORDER BY
  t.id DESC
LIMIT
  $1;
