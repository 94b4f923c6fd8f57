-- push_subscription_settle: run by src/db/push-subscription.repository.ts

UPDATE push_subscriptions p
SET
  state = CASE
    WHEN o.subscribed_for_ms IS NOT NULL THEN 'subscribed'
    WHEN o.refusal IS NOT NULL THEN 'refused'
    WHEN p.subscribed_until > now() THEN 'subscribed'
    ELSE 'subscribing'
  END,
  subscribed_until = CASE
    WHEN o.subscribed_for_ms IS NOT NULL THEN now() + make_interval(secs => o.subscribed_for_ms / 1000)
    ELSE p.subscribed_until
  END,
  lease_until = CASE
    WHEN o.retry_in_ms IS NULL THEN NULL
    ELSE now() + make_interval(secs => o.retry_in_ms / 1000)
  END,
  refusal = o.refusal,
  updated_at = now()
FROM
  unnest($2::text[], $3::float8[], $4::text[], $5::float8[]) AS o (tracking_number, subscribed_for_ms, refusal, retry_in_ms)
WHERE
  p.carrier_code = $1
  AND p.tracking_number = o.tracking_number;
