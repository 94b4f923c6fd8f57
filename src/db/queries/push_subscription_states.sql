-- push_subscription_states: run by src/db/push-subscription.repository.ts

SELECT
  tracking_number,
  state,
  subscribed_until
FROM
  push_subscriptions
WHERE
  carrier_code = $1
ORDER BY
  tracking_number;
