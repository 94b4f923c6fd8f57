-- push_subscription_prune: run by src/db/push-subscription.repository.ts

DELETE FROM push_subscriptions p
WHERE
  p.carrier_code = $1
  AND (
    p.lease_until IS NULL
    OR p.lease_until <= now()
  )
  AND NOT EXISTS (
    SELECT
      1
    FROM
      route_tasks rt
      JOIN task_schedule s ON s.task_id = rt.task_id
      AND s.carrier_code = rt.carrier_code
      AND s.next_refresh_at IS NOT NULL
    WHERE
      rt.carrier_code = p.carrier_code
      AND rt.tracking_number = p.tracking_number
  );
