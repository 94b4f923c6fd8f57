-- push_subscription_newest_task: run by src/db/push-subscription.repository.ts

SELECT
  max(id) AS id
FROM
  tracking_tasks;
