/**
 * HTML by tagged template: every interpolated value is escaped unless it is already `Html` (made
 * by this tag or `raw`); arrays are joined. The console and the tracking page build every page with it, so no value
 * from the database reaches a page unescaped.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[]

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!
  values.forEach((value, i) => (out += render(value) + strings[i + 1]!))
  return new Html(out)
}

/** Markup that is known to be safe (a constant of the code's own). */
export function raw(text: string): Html {
  return new Html(text)
}
