import { loadConfig } from '../../src/config/config'

/** The configuration of a fresh clone, without any variable set: the defaults, derived once in config.ts. */
export const DEFAULTS = loadConfig({})
