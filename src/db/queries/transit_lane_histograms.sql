-- transit_lane_histograms: run by src/db/transit-writes.ts

SELECT
  b.scope_user_id,
  b.carrier_code,
  b.origin_country,
  b.origin_state,
  b.destination_country,
  b.destination_state,
  b.transit_bucket,
  b.deliveries
FROM
  unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS l (scope_user_id, carrier_code, origin_country, origin_state, destination_country, destination_state)
  JOIN transit_lane_buckets b USING (scope_user_id, carrier_code, origin_country, origin_state, destination_country, destination_state);
