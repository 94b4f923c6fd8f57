/**
 * Check-digit rules of tracking-number formats (ported from jkeen/tracking_number_data v2.0.0,
 * MIT): each takes the whole number as its format's pattern matched it.
 */

function digitsOf(text: string): number[] {
  return [...text].map((c) => c.charCodeAt(0) - 48)
}

/** The digits but the last times `weights` (repeating from the left); (sum mod 11) mod 10 = the last digit. */
export function weightedMod11(number: string, weights: readonly number[]): boolean {
  const digits = digitsOf(number)
  const check = digits.pop()!
  const sum = digits.reduce((total, d, i) => total + d * weights[i % weights.length]!, 0)
  return (sum % 11) % 10 === check
}

/** UPU S10 (two letters, eight digits, check digit, country): digits times 8,6,4,2,3,5,9,7; 11 − sum mod 11, 10 → 0, 11 → 5. */
export function s10Check(number: string): boolean {
  const weights = [8, 6, 4, 2, 3, 5, 9, 7]
  const sum = [...number.slice(2, 10)].reduce((total, d, i) => total + Number(d) * weights[i]!, 0)
  const check = 11 - (sum % 11)
  return (check === 10 ? 0 : check === 11 ? 5 : check) === Number(number[10])
}

/**
 * Mod 10 over `body` with 0-based even positions times `even` and odd positions times `odd`
 * (plain products); (10 − sum mod 10) mod 10 = `check`. Letters count as (ASCII code − 3) mod 10.
 */
export function mod10(body: string, check: string, even: number, odd: number): boolean {
  let sum = 0
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i)
    const value = c >= 48 && c <= 57 ? c - 48 : (c - 3) % 10
    sum += value * (i % 2 === 0 ? even : odd)
  }
  return (10 - (sum % 10)) % 10 === Number(check)
}
