-- Carriers that push (docs/carriers.md, "UPS Track Alert").

-- A number's subscription at a carrier that pushes: durable, so that a number is subscribed once
-- per life (whatever the processes and restarts) and renewed before the life ends. One row per
-- (carrier, number), whatever the number of tasks that share it; a claim holds a lease while the
-- carrier is called. Its tasks are found by number through route_tasks, as a routed carrier's.
CREATE TABLE push_subscriptions (
  carrier_code     text NOT NULL,
  tracking_number  text NOT NULL,
  state            text NOT NULL CHECK (state IN ('subscribing', 'subscribed', 'refused')),
  -- While subscribing: the carrier is being called until then; after a failure: asked again then.
  lease_until      timestamptz,
  -- The carrier pushes the number's events until then (its tasks are fetched only to reconcile).
  subscribed_until timestamptz,
  -- refused: the carrier's code and message (an invalid number); never asked again.
  refusal          text,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (carrier_code, tracking_number)
);

-- A UPS event's identity becomes its UTC time and three-digit code, the two things a polled
-- activity and a pushed event of the same scan share: stored UPS events take the new key (a
-- second event of the same time and code in one task keeps its old one).
UPDATE tracking_events e
   SET event_key = 'ups:' || (extract(epoch FROM e.event_time) * 1000)::bigint || ':' || e.event_code
  FROM tracking_tasks t
 WHERE t.id = e.task_id
   AND t.carrier_code = 'UPS'
   AND e.id = (SELECT min(f.id) FROM tracking_events f
                WHERE f.task_id = e.task_id AND f.event_time = e.event_time AND f.event_code = e.event_code);

-- A round's renewals and retries, read by their due time: never subscribed (NULL) first.
CREATE INDEX push_subscriptions_renewal_idx ON push_subscriptions (carrier_code, (COALESCE(subscribed_until, '-infinity'::timestamptz)))
  WHERE state <> 'refused';
