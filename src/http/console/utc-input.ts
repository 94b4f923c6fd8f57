/** The console's date-time fields (`<input type="datetime-local">`), which its labels say are UTC. */

/** A field's value as the UTC time it names, or undefined for anything else. */
export function fromUtcInput(value: string): Date | undefined {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(value)) return undefined
  const date = new Date(`${value}Z`)
  return Number.isNaN(date.getTime()) ? undefined : date
}

/** A time as a field's value, to the minute. */
export const toUtcInput = (ms: number) => new Date(ms).toISOString().slice(0, 16)
