-- transit_add_to_lanes: run by src/db/transit-writes.ts

INSERT INTO
  transit_lane_buckets AS b (
    scope_user_id,
    carrier_code,
    origin_country,
    origin_state,
    destination_country,
    destination_state,
    transit_bucket,
    deliveries
  )
SELECT
  *
FROM
  unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[])
ON CONFLICT (
  scope_user_id,
  carrier_code,
  origin_country,
  origin_state,
  destination_country,
  destination_state,
  transit_bucket
) DO UPDATE
SET
  deliveries = b.deliveries + EXCLUDED.deliveries;
