// Failure 8: the database restored to an earlier point. A snapshot is a template copy of the
// database; restoring drops the database and recreates it from the snapshot. Both briefly refuse
// and end connections to the database, as a real restore would; pools reconnect by themselves.
import pg from 'pg';

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function withAdmin<T>(adminUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => undefined); // a lost connection fails the query that is waiting
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function closeDatabase(c: pg.Client, db: string): Promise<void> {
  await c.query(`ALTER DATABASE ${ident(db)} ALLOW_CONNECTIONS false`);
  await c.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [db],
  );
}

export async function snapshotDatabase(
  adminUrl: string,
  db: string,
  snapshot: string,
): Promise<void> {
  await withAdmin(adminUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${ident(snapshot)}`);
    await closeDatabase(c, db);
    try {
      await c.query(`CREATE DATABASE ${ident(snapshot)} TEMPLATE ${ident(db)}`);
    } finally {
      await c.query(`ALTER DATABASE ${ident(db)} ALLOW_CONNECTIONS true`);
    }
  });
}

export async function restoreDatabase(
  adminUrl: string,
  db: string,
  snapshot: string,
): Promise<void> {
  await withAdmin(adminUrl, async (c) => {
    await closeDatabase(c, db);
    await c.query(`DROP DATABASE ${ident(db)} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${ident(db)} TEMPLATE ${ident(snapshot)}`);
  });
}

export async function dropDatabase(adminUrl: string, db: string): Promise<void> {
  await withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${ident(db)} WITH (FORCE)`));
}
