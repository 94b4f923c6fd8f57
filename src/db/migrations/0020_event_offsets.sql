-- The offset of an event's local time as its carrier wrote it ("-08:00"), for the full task's
-- localTime and utcOffset; NULL where the carrier gave none (never guessed). No default, so adding
-- it rewrites no row; a refetch fills it for events stored without one.
ALTER TABLE tracking_events ADD COLUMN utc_offset text CHECK (utc_offset ~ '^[+-][0-9]{2}:[0-9]{2}$');
