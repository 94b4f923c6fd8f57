-- inbound_hold_open: run by src/db/inbound.repository.ts

SELECT
  set_config('idle_in_transaction_session_timeout', $1, true);
