// What the doctor says when a source refuses it, in words and with the fix: a 401 of the
// management API told apart (wrong password, or no tag) by the same credentials over AMQP, and a
// PostgreSQL connection's failure named by the variable its URL came from.
import amqp from 'amqplib';
import { errorMessage } from '../../log.js';
import { TIMEOUT_MS, bad, where, type Finding } from './finding.js';

/**
 * Where the same credentials may be tried over AMQP: never over a weaker transport than the
 * management URL's. An https URL's credentials go over amqps (TLS, the certificate verified) to
 * port 5671 of the same host, an http URL's over amqp to 5672.
 */
export function loginTarget(u: URL): { protocol: 'amqp' | 'amqps'; port: number } {
  return u.protocol === 'https:'
    ? { protocol: 'amqps', port: 5671 }
    : { protocol: 'amqp', port: 5672 };
}

/**
 * Why the management API answered 401: the same credentials tried over AMQP (loginTarget: the
 * same host, as strong a transport), which admits any user with the right password, tagged or
 * not. A broker that refuses them there too has a wrong user or password; one that admits them
 * (or refuses only the vhost) has a user without a management or monitoring tag.
 */
export async function refused(url: string, source: string): Promise<Finding> {
  const u = new URL(url);
  const user = decodeURIComponent(u.username);
  const tag = `rabbitmqctl set_user_tags ${user || '<user>'} monitoring`;
  const creds = 'correct the credentials in RABBITMQ_MANAGEMENT_URL';
  const { protocol, port } = loginTarget(u);
  const at = `${protocol} at ${u.hostname}:${port}`;
  const verdict = await amqpLogin(u);
  if (verdict === 'admitted')
    return bad(
      'fail',
      source,
      `refused (401): user ${user} has the right password (the broker admits it over AMQP) but no management or monitoring tag`,
      tag,
    );
  if (verdict === 'refused')
    return bad(
      'fail',
      source,
      `refused (401): a wrong user or password (the broker refuses the same credentials over ${at})`,
      creds,
    );
  return bad(
    'fail',
    source,
    `refused (401): a wrong user or password, or a user without a management or monitoring tag (${at}, which would tell them apart, did not answer: ${verdict.unknown})`,
    `${creds}; or give the user the tag: ${tag}`,
  );
}

/** Whether the broker admits these credentials over AMQP, bounded by TIMEOUT_MS. */
async function amqpLogin(u: URL): Promise<'admitted' | 'refused' | { unknown: string }> {
  try {
    const conn = await amqp.connect(
      {
        ...loginTarget(u),
        hostname: u.hostname,
        username: decodeURIComponent(u.username),
        password: decodeURIComponent(u.password),
        vhost: '/',
      },
      { timeout: TIMEOUT_MS },
    );
    conn.on('error', () => undefined);
    await conn.close().catch(() => undefined);
    return 'admitted';
  } catch (err) {
    const message = errorMessage(err);
    // 403 ACCESS_REFUSED: the login itself. Logged in, the vhost refused: 530 NOT_ALLOWED, or
    // (amqplib) the broker closing the connection where connection.open-ok was due.
    if (/ACCESS[-_]REFUSED/.test(message)) return 'refused';
    if (/NOT[-_]ALLOWED|Expected ConnectionOpenOk/.test(message)) return 'admitted';
    return { unknown: message };
  }
}

/**
 * Why a connection failed at the socket, in words (refused, no such host, no answer, no route);
 * null for any other error. `at` is the host and port, `host` the host alone.
 */
export function socketProblem(err: unknown, at: string, host: string): string | null {
  const code = (err as { code?: string } | null)?.code;
  const said: Record<string, string> = {
    ECONNREFUSED: `nothing listens at ${at}: the connection was refused`,
    ENOTFOUND: `no host ${host} (DNS does not know it)`,
    EAI_AGAIN: `no host ${host} (DNS did not answer)`,
    ETIMEDOUT: `no answer from ${at}`,
    EHOSTUNREACH: `${at} cannot be reached (no route to the host)`,
    ECONNRESET: `${at} closed the connection`,
  };
  return (code && said[code]) ?? null;
}

/**
 * Why a PostgreSQL connection failed, in words, naming the variable its URL came from (a _FILE
 * form included): refused, no such host, no answer, the password, the database, the role.
 */
export function pgProblem(err: unknown, variable: string, url: string): string {
  const e = err as { code?: string; message?: string };
  const at = where(url);
  const said: Record<string, string> = {
    '28P01': 'the password was refused',
    '28000': 'the server refused the role (pg_hba.conf, or no such role)',
    '3D000': `the database ${new URL(url).pathname.slice(1) || '(none named)'} does not exist`,
  };
  const words =
    socketProblem(err, at, new URL(url).hostname) ??
    (e.code && said[e.code]) ??
    (/timeout/i.test(e.message ?? '')
      ? `no answer from ${at} within ${TIMEOUT_MS / 1000} s`
      : errorMessage(err));
  return `${words} (${variable})`;
}
