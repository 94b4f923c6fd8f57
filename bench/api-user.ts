/** A new API user, made through the admin API of a running service: its id and bearer token. */
export async function createApiUser(baseUrl: string, adminToken: string, name: string): Promise<{ userId: number; token: string }> {
  const res = await fetch(`${baseUrl}/admin/api-users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  })
  if (res.status !== 200) throw new Error(`creating API user ${name}: HTTP ${res.status}`)
  return ((await res.json()) as { data: { userId: number; token: string } }).data
}
