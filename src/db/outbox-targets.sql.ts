import { TARGET_KINDS, type TargetKind } from '../domain/outbox'

/**
 * Where each kind of delivery target goes, in SQL over a delivery row: the one place that says a
 * callback delivery goes to its task's callbackUrl as it is when it is sent, an endpoint's to
 * the endpoint's URL, and a message to its task's recipient's address on its channel. A new target kind gives its lines here (the typecheck says so); the
 * statements that resolve targets (the claims, the console's failures) take them from here.
 */
const ADDRESS: Record<TargetKind, (d: string) => string> = {
  callback: (d) => `(SELECT t.callback_url FROM tracking_tasks t WHERE t.id = ${d}.task_id)`,
  endpoint: (d) => `(SELECT e.url FROM webhook_endpoints e WHERE e.id = ${d}.endpoint_id)`,
  // The recipient's address on the delivery's channel; null when the task has none (removed, or
  // its data deleted): the sender says so.
  recipient: (d) => `(SELECT CASE ${d}.channel WHEN 'sms' THEN r.phone ELSE r.email END FROM task_recipients r WHERE r.task_id = ${d}.task_id)`,
}

/**
 * Whether a target takes deliveries now, for the kinds that may not (undefined: always): a disabled
 * endpoint's wait (disabling it failed those pending then).
 */
const OPEN: Record<TargetKind, ((d: string) => string) | undefined> = {
  callback: undefined,
  endpoint: (d) => `EXISTS (SELECT FROM webhook_endpoints e WHERE e.id = ${d}.endpoint_id AND e.enabled)`,
  recipient: undefined,
}

const byKind = (d: string, of: Record<TargetKind, (d: string) => string>) =>
  `CASE ${d}.target ${TARGET_KINDS.map((kind) => `WHEN '${kind}' THEN ${of[kind](d)}`).join(' ')} END`

/** The address delivery `d` goes to now (a URL for the webhook channel). */
export const addressOf = (d: string): string => byKind(d, ADDRESS)

/**
 * True when delivery `d`'s target takes deliveries now: one condition a kind that may not, each of
 * the form `(target <> kind OR …)`, which the planner reads as true for nearly every row (as a CASE,
 * its guess of a third made a claim read and sort every due row).
 */
export const targetOpen = (d: string): string => {
  const conditions = TARGET_KINDS.flatMap((kind) => {
    const open = OPEN[kind]
    return open ? [`(${d}.target <> '${kind}' OR ${open(d)})`] : []
  })
  return conditions.length > 0 ? conditions.join(' AND ') : 'true'
}

/** Delivery `d` is its task's own, to its callback (latestWebhook, the task's history): read through `deliveries_task_idx`. */
export const isCallback = (d: string): string => `${d}.target = 'callback'`
