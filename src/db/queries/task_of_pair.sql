-- task_of_pair: run by src/db/carrier-changes.ts

SELECT
  id
FROM
  tracking_tasks
WHERE
  user_id = $1
  AND tracking_number = $2
  AND carrier_code = $3;
