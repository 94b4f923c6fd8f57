-- route_registration_lock: run by src/db/route-registration.repository.ts

SELECT
  pg_advisory_xact_lock(hashtextextended ('route_registration ' || $1::text, 0));
