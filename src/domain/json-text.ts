/**
 * JSON text with parts that are JSON already: a document whose members are written with
 * JSON.stringify, except the `RawJson` ones, written as they are. The task's events are kept as
 * the text they are sent as (see task-document.ts): parsing and serialising them again on every read
 * was most of the API's work per query.
 */
export class RawJson {
  /** `text` must be one JSON value. */
  constructor(readonly text: string) {}
}

export type JsonMembers = readonly (readonly [key: string, value: unknown])[]

/** `{"key":value,...}` in the members' order; a RawJson value goes in verbatim. */
export function objectText(members: JsonMembers): string {
  let text = '{'
  for (const [key, value] of members) {
    if (text.length > 1) text += ','
    text += `${JSON.stringify(key)}:${value instanceof RawJson ? value.text : JSON.stringify(value)}`
  }
  return `${text}}`
}

/** The JSON object `object` (text) with `members` added at its end. */
export function withMembers(object: string, members: JsonMembers): string {
  const added = objectText(members)
  if (added === '{}') return object
  const body = object.trimEnd()
  if (!body.endsWith('}')) throw new Error('not a JSON object')
  return body === '{}' ? added : `${body.slice(0, -1)},${added.slice(1)}`
}
