-- Transit times learned from delivered tasks (domain/transit-times.ts): the predicted delivery and
-- the transit-time analytics. Only a change writes them; a fetch that finds nothing new does not.

-- A task's transit facts, advanced by the refresh as its events arrive. No defaults that rewrite a
-- row: NULLs, and booleans whose constant default PostgreSQL keeps in the catalog.
ALTER TABLE tracking_tasks
  ADD COLUMN transit_started_at timestamptz,
  ADD COLUMN first_estimated_delivery_at timestamptz,
  ADD COLUMN passed_exception boolean NOT NULL DEFAULT false,
  ADD COLUMN transit_counted boolean NOT NULL DEFAULT false;

-- Each lane's histogram of transit times (hours, bucketed), for every user's deliveries
-- (scope_user_id 0) and for each user's own. A lane is a carrier and its origin and destination
-- countries and states; '*' in a field is any (the wider lanes).
CREATE TABLE transit_lane_buckets (
  scope_user_id       bigint  NOT NULL,
  carrier_code        text    NOT NULL,
  origin_country      text    NOT NULL,
  origin_state        text    NOT NULL,
  destination_country text    NOT NULL,
  destination_state   text    NOT NULL,
  transit_bucket      integer NOT NULL,
  deliveries          integer NOT NULL,
  PRIMARY KEY (scope_user_id, carrier_code, origin_country, origin_state, destination_country, destination_state, transit_bucket)
);

-- Each lane's percentiles, read off its histogram whenever a delivery adds to it: the full task's
-- prediction reads one row of it.
CREATE TABLE transit_lanes (
  scope_user_id       bigint NOT NULL,
  carrier_code        text   NOT NULL,
  origin_country      text   NOT NULL,
  origin_state        text   NOT NULL,
  destination_country text   NOT NULL,
  destination_state   text   NOT NULL,
  deliveries          integer NOT NULL,
  p10_hours           float8 NOT NULL,
  median_hours        float8 NOT NULL,
  p90_hours           float8 NOT NULL,
  PRIMARY KEY (scope_user_id, carrier_code, origin_country, origin_state, destination_country, destination_state)
);

-- Each user's deliveries by delivery day (UTC), narrowest lane and transit bucket, with how many had
-- an ETA, were on time by the first one and passed through an exception: the analytics sum a
-- range of days of it.
CREATE TABLE transit_days (
  user_id             bigint  NOT NULL,
  delivered_on        date    NOT NULL,
  carrier_code        text    NOT NULL,
  origin_country      text    NOT NULL,
  origin_state        text    NOT NULL,
  destination_country text    NOT NULL,
  destination_state   text    NOT NULL,
  transit_bucket      integer NOT NULL,
  deliveries          integer NOT NULL,
  with_eta            integer NOT NULL,
  on_time             integer NOT NULL,
  exceptions          integer NOT NULL,
  PRIMARY KEY (user_id, delivered_on, carrier_code, origin_country, origin_state, destination_country, destination_state, transit_bucket)
);
-- The same per month (its first day): a year's analytics read twelve months of it, and days of
-- transit_days only for the parts of months a range cuts.
CREATE TABLE transit_months (
  user_id             bigint  NOT NULL,
  month               date    NOT NULL,
  carrier_code        text    NOT NULL,
  origin_country      text    NOT NULL,
  origin_state        text    NOT NULL,
  destination_country text    NOT NULL,
  destination_state   text    NOT NULL,
  transit_bucket      integer NOT NULL,
  deliveries          integer NOT NULL,
  with_eta            integer NOT NULL,
  on_time             integer NOT NULL,
  exceptions          integer NOT NULL,
  PRIMARY KEY (user_id, month, carrier_code, origin_country, origin_state, destination_country, destination_state, transit_bucket)
);

-- The console's on-time rates per week read every user's recent days. A delivery that adds to an
-- existing row changes no indexed column (a HOT update where the page has room).
CREATE INDEX transit_days_delivered_on_idx ON transit_days (delivered_on);

-- Whose deliveries a user's predictions rest on: every user's ('all') or the user's own ('own').
ALTER TABLE settings ADD COLUMN prediction_sharing text NOT NULL DEFAULT 'all' CHECK (prediction_sharing IN ('all', 'own'));
