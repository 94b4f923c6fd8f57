import { createHash } from 'node:crypto'

/**
 * Names for statements whose text is built from a request's shape (which filters, which sort,
 * what page size). A named statement is prepared on every pooled connection that runs it and
 * kept there (about 200 KB of PostgreSQL's memory each for a list page), so the names given out
 * are bounded: the first `max` distinct texts are named, any further one runs unnamed (planned
 * on each call, as correct and a little slower). Clients use a handful of shapes; a client that
 * walks through thousands cannot grow the database's memory with them.
 */
export class StatementNames {
  private readonly names = new Map<string, string>()

  constructor(
    private readonly prefix: string,
    private readonly max: number,
  ) {}

  /** The name for `text`, or undefined once `max` other texts have names. */
  nameOf(text: string): string | undefined {
    let name = this.names.get(text)
    if (name === undefined && this.names.size < this.max) {
      name = `${this.prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`
      this.names.set(text, name)
    }
    return name
  }
}
