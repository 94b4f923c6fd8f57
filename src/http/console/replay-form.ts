import { invalid, MUST, type FieldError } from '../../domain/errors'

/** What the bulk replay form was sent with (as typed), to show it again. */
export interface ReplayForm {
  createdFrom: string
  createdTo: string
  userId: string
  endpointId: string
}

/** A datetime-local value, to the minute (its time zone is UTC, as the form's labels say). */
const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16)

/** The form's default window: the last 24 hours, in UTC. */
export function defaultReplayForm(now: number): ReplayForm {
  return { createdFrom: minute(now - 86_400_000), createdTo: minute(now + 60_000), userId: '', endpointId: '' }
}

/** The replay's filter from the form, or a validation error naming each wrong field. */
export function replayFilterOf(form: ReplayForm): { createdFrom: string; createdTo: string; userId?: number; endpointId?: number } {
  const problems: FieldError[] = []
  const time = (field: 'createdFrom' | 'createdTo') => {
    const value = form[field]
    const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(value) ? Date.parse(`${value}Z`) : NaN
    if (Number.isNaN(ms)) problems.push({ field, message: 'must be a date and time (UTC)' })
    return Number.isNaN(ms) ? '' : new Date(ms).toISOString()
  }
  const optionalId = (field: 'userId' | 'endpointId') => {
    if (form[field] === '') return undefined
    if (!/^[1-9][0-9]{0,14}$/.test(form[field])) problems.push({ field, message: MUST.positiveInteger })
    return Number(form[field])
  }
  const filter = { createdFrom: time('createdFrom'), createdTo: time('createdTo'), userId: optionalId('userId'), endpointId: optionalId('endpointId') }
  if (problems.length === 0 && filter.createdFrom >= filter.createdTo) problems.push({ field: 'createdFrom', message: 'must be before createdTo' })
  if (problems.length > 0) throw invalid(problems)
  return filter
}
