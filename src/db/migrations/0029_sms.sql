-- The customer's SMS (docs/notifications.md, "SMS").

-- The phone's keyed hash, as the email's: what finds its suppression (recipient_addresses). Set
-- with every phone from now on; a phone set before has none, and is sent nothing by SMS until its
-- recipient is set again.
ALTER TABLE task_recipients ADD COLUMN phone_hash text;

-- SMS is a channel of the outbox. The provider's id of a message it took (Twilio's MessageSid) and
-- the delivery status its callback last reported (queued … delivered, undelivered, failed).
ALTER TABLE deliveries
  DROP CONSTRAINT deliveries_channel_check,
  ADD CONSTRAINT deliveries_channel_check CHECK (channel IN ('webhook', 'email', 'sms')),
  ADD COLUMN provider_id text,
  ADD COLUMN provider_status text;

-- A reply of STOP from a number finds every shop that knows it.
CREATE INDEX recipient_addresses_hash_idx ON recipient_addresses (address_hash);
