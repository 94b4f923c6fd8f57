import { describe, expect, it } from 'vitest'
import { MILESTONE_NAMES } from './milestones'
import { LANGUAGES } from './tracking-page'
import { LABELS, LANGUAGE_NAMES, LOCALES, MILESTONE_LABELS } from './customer-labels'

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()

describe('the tracking page’s labels', () => {
  it.each(LANGUAGES.filter((l) => l !== 'en'))('are all in %s, with English’s placeholders, and translated', (language) => {
    for (const [key, english] of Object.entries(LABELS.en)) {
      const text = LABELS[language][key as keyof typeof LABELS.en]
      expect(text, `${language}.${key}`).toBeTruthy()
      expect(placeholders(text), `${language}.${key}`).toEqual(placeholders(english))
    }
    // A copied English label is a missing translation (names and numbers aside, none is the same).
    const same = Object.keys(LABELS.en).filter((key) => LABELS[language][key as keyof typeof LABELS.en] === LABELS.en[key as keyof typeof LABELS.en])
    expect(same).toEqual([])
  })

  it.each(LANGUAGES)('name every milestone in %s, and the language itself', (language) => {
    for (const milestone of MILESTONE_NAMES) expect(MILESTONE_LABELS[language][milestone], `${language}.${milestone}`).toBeTruthy()
    expect(LANGUAGE_NAMES[language]).toBeTruthy()
    expect(Intl.DateTimeFormat.supportedLocalesOf([LOCALES[language]])).toEqual([LOCALES[language]])
  })
})
