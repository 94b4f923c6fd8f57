import { TERMINAL_STATUSES } from '../domain/tracking-update'
import { ANY, MIN_LANE_DELIVERIES, type Basis } from '../domain/transit-times'
import { iso } from './task-document.sql'

/** The columns of a task a prediction is made from, as SQL expressions. */
export interface PredictionInputs {
  userId: string
  carrierCode: string
  /** The first scan's time (transit_started_at). */
  startedAt: string
  standardStatus: string
  /** The addresses as stored (json). */
  originAddress: string
  destinationAddress: string
}

/**
 * A task's prediction as an SQL sub-select of two columns, for `SET (predicted_delivery_at,
 * prediction) = (…)`: its lane's median added to its first scan, and the prediction member as the
 * full task writes it ({basis, samples, earliest, latest}). No row (both NULL) before the first
 * scan, for a terminal task and where no lane has enough deliveries.
 *
 * The lane is the narrowest of the task's lanes with enough deliveries (domain/transit-times.ts),
 * from every user's deliveries or, with predictionSharing = own, from the task's user's only. The
 * lanes are probed narrowest first, one key lookup each, and the first found ends it (an Append
 * runs its parts in order and the LIMIT stops it; no sort).
 */
export function predictionOf(task: PredictionInputs): string {
  const field = (address: string, member: string) => `COALESCE(${address}->>'${member}', '')`
  const [oc, os, dc, ds] = [
    field(task.originAddress, 'country'),
    field(task.originAddress, 'state'),
    field(task.destinationAddress, 'country'),
    field(task.destinationAddress, 'state'),
  ]
  const terminal = [...TERMINAL_STATUSES].map((status) => `'${status}'`).join(', ')
  const probe = (basis: Basis, key: [string, string, string, string]) =>
    `SELECT '${basis}' AS basis, l.deliveries, l.p10_hours, l.median_hours, l.p90_hours
       FROM transit_lanes l
      WHERE l.scope_user_id = scope.user_id AND l.carrier_code = ${task.carrierCode}
        AND (l.origin_country, l.origin_state, l.destination_country, l.destination_state) = (${key.join(', ')})
        AND l.deliveries >= ${MIN_LANE_DELIVERIES}`
  const at = (hours: string) => `(${task.startedAt} + lane.${hours} * interval '1 hour')`
  return `SELECT ${at('median_hours')},
          (SELECT row_to_json(x) FROM (
             SELECT lane.basis AS basis, lane.deliveries AS samples, ${iso(at('p10_hours'))} AS earliest, ${iso(at('p90_hours'))} AS latest) x)
     FROM (SELECT CASE WHEN (SELECT prediction_sharing FROM settings) = 'own' THEN ${task.userId} ELSE 0 END AS user_id) AS scope,
          LATERAL (${probe('states', [oc, os, dc, ds])}
                   UNION ALL
                   ${probe('countries', [oc, `'${ANY}'`, dc, `'${ANY}'`])}
                   UNION ALL
                   ${probe('carrier', [`'${ANY}'`, `'${ANY}'`, `'${ANY}'`, `'${ANY}'`])}) AS lane
    WHERE ${task.startedAt} IS NOT NULL AND ${task.standardStatus} NOT IN (${terminal})
    LIMIT 1`
}

/** The prediction of the tracking_tasks row `t` as it stands. */
export const PREDICTION_OF_TASK = predictionOf({
  userId: 't.user_id',
  carrierCode: 't.carrier_code',
  startedAt: 't.transit_started_at',
  standardStatus: 't.standard_status',
  originAddress: 't.origin_address',
  destinationAddress: 't.destination_address',
})
