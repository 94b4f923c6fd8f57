import type { ServerResponse } from 'node:http'

/** Answers 200 with `mebibytes` of spaces, written as fast as the client reads (a carrier gone wrong). */
export function sendMebibytes(res: ServerResponse, mebibytes: number, contentType: string): void {
  res.writeHead(200, { 'content-type': contentType })
  const chunk = Buffer.alloc(1 << 20, 32)
  let sent = 0
  const more = () => {
    while (sent < mebibytes && res.write(chunk)) sent++
    if (sent < mebibytes) res.once('drain', more)
    else res.end()
  }
  more()
}
