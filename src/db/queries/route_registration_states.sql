-- route_registration_states: run by src/db/route-registration.repository.ts

SELECT
  carrier_code,
  tracking_number,
  state
FROM
  route_registrations
WHERE
  carrier_code = ANY ($1::text[])
ORDER BY
  carrier_code,
  tracking_number;
