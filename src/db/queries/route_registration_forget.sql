-- route_registration_forget: run by src/db/route-registration.repository.ts

DELETE FROM route_registrations r USING unnest($1::text[], $2::text[]) AS f (carrier_code, tracking_number)
WHERE
  r.carrier_code = f.carrier_code
  AND r.tracking_number = f.tracking_number;
