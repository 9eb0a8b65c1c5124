/**
 * Who may talk to the playground: checks on the Host and Origin of each request, and the security headers
 * sent with every response.
 *
 * The playground runs tools on this machine, so a web page the person happens to have open elsewhere must
 * not be able to drive it. Three checks do that:
 * - `Host` must name this server (loopback names when bound to loopback), which defeats DNS rebinding: a
 *   rebound attacker domain arrives with its own name in `Host`.
 * - `Origin`, when present, must be this server's own origin; `POST` requests must carry one (browsers
 *   always send it on `POST`), so a cross-site form or `fetch` cannot start runs or approve tools.
 * - `Sec-Fetch-Site` (sent by current browsers) must not be `cross-site` / `same-site`, except for a plain
 *   navigation to the page itself (a link to the playground from elsewhere still opens it).
 *
 * Bound to anything but loopback, other machines can reach the server, so those checks are not enough:
 * every API call must then also carry the server's access token ({@link tokenProblem}).
 *
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

/** Where the server listens, as the checks need it. */
export interface BoundAddress {
  /** The host the server was asked to bind (`127.0.0.1`, `localhost`, `0.0.0.0`, a name, ...). */
  host: string;
  port: number;
}

/**
 * Content-Security-Policy of every response: scripts, styles and connections from this origin only, no
 * inline script, no plugins, no framing. The page's data is written with `textContent`, so this is a
 * second layer, not the first.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers sent with every response. */
export const SECURITY_HEADERS: Readonly<OutgoingHttpHeaders> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

/** True for hosts that only this machine can reach: `localhost`, `127.0.0.0/8`, `::1`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** Splits a `Host` header into name and port; `undefined` when malformed. */
function parseHostHeader(value: string): { name: string; port: number | undefined } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!match?.[1]) return undefined;
  return { name: match[1].toLowerCase(), port: match[2] === undefined ? undefined : Number(match[2]) };
}

/**
 * Why the `Host` header does not name this server, or `undefined` when it does. On loopback only loopback
 * names are accepted; on another address also IP literals (no DNS involved) and the host it was given.
 */
export function hostProblem(hostHeader: string | undefined, bound: BoundAddress): string | undefined {
  if (!hostHeader) return 'the request has no Host header';
  const parsed = parseHostHeader(hostHeader);
  if (!parsed) return `the Host header "${hostHeader}" is malformed`;
  if (parsed.port !== bound.port) return `the Host header "${hostHeader}" names another port`;
  const name = parsed.name.replace(/^\[|\]$/g, '');
  const allowed =
    isLoopbackHost(name) ||
    (!isLoopbackHost(bound.host) && (isIP(name) !== 0 || name === bound.host.toLowerCase()));
  return allowed ? undefined : `the Host header "${hostHeader}" does not name this server`;
}

/**
 * Why the request must be refused (sent as a 403), or `undefined` to serve it. Run after
 * {@link hostProblem}: the server's own origin is `http://` plus the (checked) `Host` header.
 */
export function requestProblem(request: IncomingMessage, bound: BoundAddress): string | undefined {
  const host = request.headers.host;
  const badHost = hostProblem(host, bound);
  if (badHost) return badHost;
  const ownOrigin = `http://${host?.toLowerCase()}`;
  const origin = request.headers.origin;
  if (origin !== undefined && origin.toLowerCase() !== ownOrigin) {
    return `requests from the origin "${origin}" are not allowed (only ${ownOrigin})`;
  }
  const method = request.method ?? 'GET';
  if (origin === undefined && method !== 'GET' && method !== 'HEAD') {
    return `${method} requests must carry an Origin header (${ownOrigin})`;
  }
  const site = request.headers['sec-fetch-site'];
  const pageNavigation =
    method === 'GET' &&
    (request.url ?? '').split('?')[0] === '/' &&
    request.headers['sec-fetch-mode'] === 'navigate';
  if ((site === 'cross-site' || site === 'same-site') && !pageNavigation) {
    return `${site} requests are not allowed`;
  }
  return undefined;
}

/** A new access token: 32 random bytes, base64url (43 characters, safe in a URL). */
export function newAccessToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Why the request does not carry the access `token`, or `undefined` when it does. The token is read from
 * `Authorization: Bearer <token>` (the page's `fetch` calls), else from the `token` query parameter (the
 * event stream and the trace download, which cannot set headers). The comparison takes the same time
 * whatever the given value (both sides are hashed to equal length first).
 */
export function tokenProblem(request: IncomingMessage, token: string): string | undefined {
  const header = request.headers.authorization;
  const bearer = header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  const given = bearer ?? new URL(request.url ?? '/', 'http://playground.invalid').searchParams.get('token');
  if (given === null || given === undefined || given === '')
    return 'this playground needs its access token: open the URL that taoloop serve printed (it ends in ?token=...)';
  return sameSecret(given, token)
    ? undefined
    : 'the access token is wrong: open the URL that taoloop serve printed';
}

/** Constant-time comparison of two secrets of any lengths. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}
