/**
 * PostgreSQL array literals for the multi-row statements' parameters, written here instead of
 * by pg: pg quotes and escapes each element with two regular expressions, a few per cent of the
 * API process's time under a batch load (230-row statements of six arrays). Every element is
 * quoted, so that no text (empty, NULL, with commas or braces) can be read as anything but itself;
 * only a backslash or a double quote needs escaping, and most texts hold neither.
 */
export function textArray(values: readonly string[]): string {
  if (values.length === 0) return '{}'
  const plain = values.every((value) => !value.includes('"') && !value.includes('\\'))
  return plain ? `{"${values.join('","')}"}` : `{${values.map((value) => `"${value.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`
}

/** An array literal of texts and nulls (NULL unquoted, every text quoted). */
export function textOrNullArray(values: readonly (string | null)[]): string {
  return `{${values.map((value) => (value === null ? 'NULL' : `"${value.replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`
}

/** An array literal of integers (ids, counts): nothing to quote. */
export function intArray(values: readonly number[]): string {
  return `{${values.join(',')}}`
}
