/**
 * Reading carrier JSON defensively: a value of the wrong type reads as empty, never throws.
 * Carriers send "" or [""] for missing values, so strings are trimmed.
 */
export type Json = Record<string, unknown>

export function obj(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {}
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value.trim() : ''
}
