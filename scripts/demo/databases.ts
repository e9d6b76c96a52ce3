// The demo's databases: the pipeline's and the journey store (made unless their URLs were given),
// and the exporter's read-only role on the pipeline's.
import pg from 'pg';
import { ADMIN_URL, DATABASE_URL, DB_NAME, READER, STORE_NAME, env } from './settings.js';

/** Creates the demo's pipeline database and journey store unless their URLs were given. */
export async function ensureDatabases(): Promise<void> {
  const wanted = [
    ...(env.DATABASE_URL ? [] : [DB_NAME]),
    ...(env.ACKTRAIL_DATABASE_URL ? [] : [STORE_NAME]),
  ];
  if (wanted.length === 0) return;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    for (const name of wanted) {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (!exists.rowCount) await admin.query(`CREATE DATABASE ${name}`);
    }
  } finally {
    await admin.end();
  }
}

/** The exporter's read-only role: SELECT on the pipeline's tables, nothing else. */
export async function ensureReader(): Promise<void> {
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  try {
    const exists = await db.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [READER.user]);
    if (!exists.rowCount) {
      await db.query(`CREATE ROLE ${READER.user} LOGIN PASSWORD '${READER.password}'`);
    }
    const dbName = new URL(DATABASE_URL).pathname.slice(1);
    await db.query(`GRANT CONNECT ON DATABASE "${dbName}" TO ${READER.user}`);
    await db.query(`GRANT USAGE ON SCHEMA public TO ${READER.user}`);
    // Every table of the pipelines' schemas, whatever their names: SELECT and nothing else.
    await db.query(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${READER.user}`);
  } finally {
    await db.end();
  }
}
