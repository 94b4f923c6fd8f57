/**
 * Route schemas compiled at their first use, or soon after the app listens, whichever comes first.
 * Compiling every route's validators and serializers before listening was about half of a later
 * start (0.5 s of Ajv and fast-json-stringify); after listening, the rest are compiled one per turn
 * of the event loop, so requests that arrive meanwhile are served between them.
 */
export class DeferredCompiles {
  private readonly pending = new Set<() => unknown>()

  /** A validator (Ajv's: its `errors` read after a call) compiled on its first call. */
  validator(compile: () => Validator): Validator {
    const compiled = this.lazy(compile)
    const validate: Validator = (data: unknown) => {
      const run = compiled()
      const result = run(data)
      validate.errors = run.errors
      return result
    }
    return validate
  }

  /** A serializer compiled on its first call. */
  serializer(compile: () => Serializer): Serializer {
    const compiled = this.lazy(compile)
    return (data: unknown) => compiled()(data)
  }

  /** Compiles what no request has needed yet, one per turn; `failed` hears a schema that does not compile. */
  compileRest(failed: (error: unknown) => void): void {
    const next = () => {
      const compile = this.pending.values().next().value
      if (!compile) return
      this.pending.delete(compile)
      try {
        compile()
      } catch (error) {
        failed(error)
      }
      setImmediate(next)
    }
    setImmediate(next)
  }

  /** `compile`'s result, made at the first call and kept; until then one of the pending compiles. */
  private lazy<F>(compile: () => F): () => F {
    let compiled: F | undefined
    const once = () => (compiled ??= compile())
    this.pending.add(once)
    return once
  }
}

export interface Validator {
  (data: unknown): unknown
  errors?: unknown
}
export type Serializer = (data: unknown) => string
