-- push_subscription_live: run by src/db/push-subscription.repository.ts

SELECT
  tracking_number
FROM
  push_subscriptions
WHERE
  carrier_code = $1
  AND tracking_number = ANY ($2::text[])
  AND subscribed_until > now();
