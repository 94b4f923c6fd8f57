-- refresh_release_claim: run by src/db/refresh.repository.ts

DELETE FROM refresh_claims
WHERE
  lease_token = $1;
