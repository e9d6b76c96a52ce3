// What `acktrail doctor` checks, one source at a time, as `acktrail serve` will use it: the
// broker's management API and its user's tags, the rabbitmq_prometheus endpoints and the node
// each answers as, the pipeline's database and its role, the journey store and its migrations.
// Celery, parking and the listeners are in more-checks.ts. Every check is bounded (TIMEOUT_MS)
// and says what is wrong with the fix; none prints a password.
import { readdir } from 'node:fs/promises';
import pg from 'pg';
import type { ValidatedConfig } from '../../config.js';
import { SourceHttpError, getJson, getText } from '../../collectors/rabbitmq/source/http.js';
import { identityOf } from '../../collectors/rabbitmq/source/detailed.js';
import { MIGRATIONS_DIR } from '../../journeys/store/index.js';
import { errorMessage } from '../../log.js';
import { pgProblem, refused } from './explain.js';
import { TIMEOUT_MS, bad, ok, where, type Finding } from './finding.js';
import { docsUrl } from '../../docs.js';

const signal = () => AbortSignal.timeout(TIMEOUT_MS);

/** Why an HTTP read failed, in words: status, refusal, timeout. */
function httpProblem(err: unknown): string {
  if (err instanceof SourceHttpError) return `answered ${err.status}`;
  if (err instanceof Error && err.name === 'TimeoutError')
    return `no answer within ${TIMEOUT_MS / 1000} s`;
  const cause = (err as { cause?: { code?: string } }).cause?.code;
  return cause ? `cannot connect (${cause})` : errorMessage(err);
}

/** The management API: reachable, the credentials right, the user's tags, the vhosts named. */
export async function management(config: ValidatedConfig): Promise<Finding[]> {
  const source = `management API ${where(config.managementUrl)}`;
  let me: { name: string; tags: string | string[] };
  try {
    me = await getJson(config.managementUrl, '/api/whoami', signal());
  } catch (err) {
    if (err instanceof SourceHttpError && err.status === 401)
      return [await refused(config.managementUrl, source)];
    return [
      bad(
        'fail',
        source,
        httpProblem(err),
        'enable the management plugin (rabbitmq-plugins enable rabbitmq_management) or correct the host and port of RABBITMQ_MANAGEMENT_URL',
      ),
    ];
  }
  const tags = Array.isArray(me.tags) ? me.tags : me.tags.split(',').filter(Boolean);
  const out: Finding[] = [];
  if (tags.includes('monitoring') || tags.includes('administrator'))
    out.push(ok(source, `user ${me.name}, tags ${tags.join(', ')}`));
  else
    out.push(
      bad(
        'warn',
        source,
        `user ${me.name} has tags [${tags.join(', ')}]: it sees only the vhosts it has permissions on, and no node's details`,
        `rabbitmqctl set_user_tags ${me.name} monitoring`,
      ),
    );
  for (const vhost of config.rabbitmq.vhosts) {
    try {
      // What serve reads of a vhost: its queues (a management-tagged user may read those of its
      // own vhosts, never /api/vhosts/<name>).
      const v = encodeURIComponent(vhost);
      await getJson(
        config.managementUrl,
        `/api/queues/${v}?page=1&page_size=1&columns=name`,
        signal(),
      );
    } catch (err) {
      out.push(
        bad(
          'fail',
          `${source} vhost ${vhost}`,
          err instanceof SourceHttpError && [401, 403, 404].includes(err.status)
            ? `no such vhost, or the user may not see it (${err.status})`
            : httpProblem(err),
          'correct rabbitmq.vhosts, or give the user permissions on the vhost',
        ),
      );
    }
  }
  return out;
}

/** Each rabbitmq_prometheus endpoint: it answers, and which node it says it is. */
export async function prometheusEndpoints(config: ValidatedConfig): Promise<Finding[]> {
  const r = config.rabbitmq;
  if (r.source === 'management') return [];
  const nodes =
    r.nodes === 'discover'
      ? [{ url: config.prometheusUrl, name: undefined }]
      : r.nodes.map((n) => ({ url: n.url, name: n.name }));
  // With source auto, the exporter falls back to the management API: a missing endpoint costs
  // detail (per-queue counters from the broker's own metrics), not the queue figures.
  const missing = r.source === 'auto' ? 'warn' : 'fail';
  return Promise.all(
    nodes.map(async ({ url, name }): Promise<Finding> => {
      const source = `rabbitmq_prometheus ${where(url)}`;
      try {
        const identity = identityOf(await getText(url, '/metrics', signal()));
        await getText(url, '/metrics/detailed?family=queue_coarse_metrics', signal());
        if (name && identity && identity !== name)
          return bad(
            'fail',
            source,
            `answers as node ${identity}, not ${name} as rabbitmq.nodes says`,
            'correct the node name or the URL in rabbitmq.nodes',
          );
        return ok(source, `node ${identity ?? '(the endpoint does not say)'}`);
      } catch (err) {
        return bad(
          missing,
          source,
          httpProblem(err),
          'enable rabbitmq_prometheus (rabbitmq-plugins enable rabbitmq_prometheus) and let acktrail reach port 15692, or set rabbitmq.prometheusUrl; rabbitmq.source: management reads the management API only',
        );
      }
    }),
  );
}

async function withClient<T>(url: string, use: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: TIMEOUT_MS,
    statement_timeout: TIMEOUT_MS,
    application_name: 'acktrail-doctor',
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The pipeline's database: reachable, and read with a role that cannot write. */
export async function pipelineDatabase(config: ValidatedConfig): Promise<Finding[]> {
  if (!config.databaseUrl) return [];
  const source = `pipeline database ${where(config.databaseUrl)}`;
  try {
    const role = await withClient(config.databaseUrl, async (c) => {
      const r = await c.query<{
        name: string;
        superuser: boolean;
        owner: boolean;
        writes: number;
      }>(
        `SELECT current_user AS name, r.rolsuper AS superuser,
                pg_get_userbyid(d.datdba) = current_user AS owner,
                (SELECT count(*)::int FROM information_schema.table_privileges
                  WHERE grantee = current_user AND privilege_type IN ('INSERT', 'UPDATE', 'DELETE')
                    AND table_schema NOT IN ('pg_catalog', 'information_schema')) AS writes
           FROM pg_roles r, pg_database d
          WHERE r.rolname = current_user AND d.datname = current_database()`,
      );
      return r.rows[0]!;
    });
    const how = role.superuser
      ? 'a superuser'
      : role.owner
        ? 'the database owner'
        : role.writes > 0
          ? `${role.writes} write grants`
          : null;
    if (how)
      return [
        bad(
          'warn',
          source,
          `role ${role.name} can write (${how}); acktrail only reads`,
          `give acktrail a role with SELECT only: ${docsUrl('metrics.md', 'a-read-only-role-for-the-exporter')}`,
        ),
      ];
    return [ok(source, `role ${role.name}, read-only`)];
  } catch (err) {
    return [
      bad(
        'fail',
        source,
        pgProblem(err, 'DATABASE_URL', config.databaseUrl),
        'correct DATABASE_URL (or DATABASE_URL_FILE), or let acktrail reach it',
      ),
    ];
  }
}

/** The journey store: reachable, and its migrations applied (or to be applied by serve). */
export async function journeyStore(config: ValidatedConfig): Promise<Finding[]> {
  if (!config.storeUrl) return [];
  const url = config.storeMigrateUrl ?? config.storeUrl;
  const source = `journey store ${where(config.storeUrl)}`;
  try {
    const applied = await withClient(url, async (c) => {
      const exists = await c.query<{ t: string | null }>(
        "SELECT to_regclass('acktrail_migrations')::text AS t",
      );
      if (!exists.rows[0]!.t) return new Set<string>();
      const r = await c.query<{ version: string }>('SELECT version FROM acktrail_migrations');
      return new Set(r.rows.map((row) => row.version));
    });
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d+_.+\.sql$/.test(f));
    const pending = files.filter((f) => !applied.has(f)).sort();
    if (pending.length)
      return [
        bad(
          'warn',
          source,
          `${pending.length} of ${files.length} migrations not applied (${pending[0]}…)`,
          'acktrail serve applies them when it starts; or run acktrail migrate',
        ),
      ];
    return [ok(source, `${files.length} migrations applied`)];
  } catch (err) {
    const variable = config.storeMigrateUrl
      ? 'ACKTRAIL_DATABASE_MIGRATE_URL'
      : config.storeUrlVariable;
    return [
      bad(
        'fail',
        source,
        pgProblem(err, variable, url),
        `correct ${variable} (or ${variable}_FILE), or start PostgreSQL there and let acktrail reach it`,
      ),
    ];
  }
}
