-- push_subscription_lock: run by src/db/push-subscription.repository.ts

SELECT
  pg_advisory_xact_lock(hashtextextended ('push_subscription ' || $1::text, 0));
