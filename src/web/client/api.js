/**
 * How the page calls the playground server: its JSON API, and the paths it opens without `fetch`.
 *
 * The access token comes from the page's own URL (`?token=...`, printed by `taoloop serve` on a
 * non-loopback host): it is sent with every API call, as a header where `fetch` is used, in the URL where
 * it cannot be.
 */
export function createApi() {
  const token = new URLSearchParams(window.location.search).get('token') || '';
  const authorization = token ? { authorization: `Bearer ${token}` } : {};

  /** `path` with the token in its query, for what the page opens without `fetch` (links, event streams). */
  function withToken(path) {
    return token ? `${path}?token=${encodeURIComponent(token)}` : path;
  }

  /**
   * Calls the server's JSON API; a POST when `body` is given (or `method`, e.g. `DELETE`, without a body).
   * Throws with the server's error message.
   */
  async function api(path, body, method) {
    const init =
      body === undefined
        ? { method: method ?? 'GET', headers: authorization }
        : {
            method: method ?? 'POST',
            headers: { 'content-type': 'application/json', ...authorization },
            body: JSON.stringify(body),
          };
    const response = await fetch(path, init);
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
    return data;
  }

  return { api, withToken };
}
