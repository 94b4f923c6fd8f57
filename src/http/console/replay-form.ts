import { invalid, MUST, type FieldError } from '../../domain/errors'
import { fromUtcInput, toUtcInput } from './utc-input'

/** What the bulk replay form was sent with (as typed), to show it again. */
export interface ReplayForm {
  createdFrom: string
  createdTo: string
  userId: string
  endpointId: string
}

/** The form's default window: the last 24 hours, in UTC. */
export function defaultReplayForm(now: number): ReplayForm {
  return { createdFrom: toUtcInput(now - 86_400_000), createdTo: toUtcInput(now + 60_000), userId: '', endpointId: '' }
}

/** The replay's filter from the form, or a validation error naming each wrong field. */
export function replayFilterOf(form: ReplayForm): { createdFrom: string; createdTo: string; userId?: number; endpointId?: number } {
  const problems: FieldError[] = []
  const time = (field: 'createdFrom' | 'createdTo') => {
    const date = fromUtcInput(form[field])
    if (!date) problems.push({ field, message: 'must be a date and time (UTC)' })
    return date?.toISOString() ?? ''
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
