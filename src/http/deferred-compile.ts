/**
 * Route schemas compiled at their first use, or soon after the app listens, whichever comes first.
 * Compiling every route's validators and serializers before listening was about half of a later
 * start (0.5 s of Ajv and fast-json-stringify); after listening, the rest are compiled one per turn
 * of the event loop, so requests that arrive meanwhile are served between them.
 */
export class DeferredCompiles {
  private readonly pending = new Set<() => void>()

  /** A validator (Ajv's: its `errors` read after a call) compiled on its first call. */
  validator(compile: () => Validator): Validator {
    let compiled: Validator | undefined
    const ensure = () => (compiled ??= compile())
    const validate: Validator = (data: unknown) => {
      const run = ensure()
      const result = run(data)
      validate.errors = run.errors
      return result
    }
    this.later(ensure)
    return validate
  }

  /** A serializer compiled on its first call. */
  serializer(compile: () => Serializer): Serializer {
    let compiled: Serializer | undefined
    const ensure = () => (compiled ??= compile())
    this.later(ensure)
    return (data: unknown) => ensure()(data)
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

  private later(compile: () => unknown): void {
    this.pending.add(() => void compile())
  }
}

export interface Validator {
  (data: unknown): unknown
  errors?: unknown
}
export type Serializer = (data: unknown) => string
