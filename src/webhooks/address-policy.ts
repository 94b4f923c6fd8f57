import { BlockList, isIP } from 'node:net'

/**
 * Which addresses a webhook may be delivered to: public unicast only. Loopback, private,
 * link-local (the cloud metadata address 169.254.169.254), carrier-grade NAT, documentation,
 * benchmarking, multicast and reserved ranges are refused, in IPv4 and IPv6, and an IPv4 address
 * hidden in an IPv6 one (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) is
 * judged as the IPv4 address it carries.
 */

const refused = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refused.addSubnet(net, prefix, 'ipv4')
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, …)
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  refused.addSubnet(net, prefix, 'ipv6')
}

/** The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), if any. */
function embeddedIpv4(ipv6: string): string | undefined {
  const groups = expandIpv6(ipv6)
  if (!groups) return undefined
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number]
  // ::ffff:a.b.c.d
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return v4(g6, g7)
  // 64:ff9b::a.b.c.d (well-known NAT64 prefix)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return v4(g6, g7)
  // 2002:aabb:ccdd::/48 (6to4)
  if (g0 === 0x2002) return v4(g1, g2)
  return undefined
}

function expandIpv6(address: string): number[] | undefined {
  let text = address.toLowerCase().split('%')[0]!
  // A trailing dotted quad becomes two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const parts = dotted[1]!.split('.').map(Number)
    text = text.slice(0, -dotted[1]!.length) + `${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`
  }
  const [head, tail] = text.split('::') as [string, string | undefined]
  const headGroups = head ? head.split(':') : []
  const tailGroups = tail ? tail.split(':') : []
  const missing = 8 - headGroups.length - tailGroups.length
  if (tail === undefined && headGroups.length !== 8) return undefined
  const groups = [...headGroups, ...Array(tail === undefined ? 0 : missing).fill('0'), ...tailGroups].map((g) => parseInt(g, 16))
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return !refused.check(address, 'ipv4')
  if (family === 6) {
    const v4 = embeddedIpv4(address)
    if (v4 !== undefined) return isPublicAddress(v4)
    return !refused.check(address, 'ipv6')
  }
  return false
}
