import pino, { type DestinationStream, type Logger } from 'pino'

/** The process's logger (pino, JSON lines). Tokens travel in headers: none of these is ever logged. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: ['req.headers.authorization', 'req.headers.cookie'] }, destination)
}
