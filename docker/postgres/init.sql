-- Runs once, when the compose stack's PostgreSQL volume is new (as POSTGRES_USER in POSTGRES_DB),
-- from init.sh, which passes the roles' passwords (psql variables store_password and
-- reader_password, from ACKTRAIL_STORE_PASSWORD and ACKTRAIL_READER_PASSWORD).
-- The journey store gets its own database, owned by its own role that is no superuser and can
-- do nothing outside it; the exporter reads the pipeline's database as a read-only role
-- (docs/metrics.md), granted SELECT on the tables the pipeline's migrations create.
CREATE ROLE acktrail_store LOGIN PASSWORD :'store_password' NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE DATABASE acktrail_journeys OWNER acktrail_store;
REVOKE ALL ON DATABASE acktrail_journeys FROM PUBLIC;
GRANT CONNECT, CREATE, TEMPORARY ON DATABASE acktrail_journeys TO acktrail_store;
CREATE ROLE acktrail_reader LOGIN PASSWORD :'reader_password';
GRANT CONNECT ON DATABASE orders TO acktrail_reader;
GRANT USAGE ON SCHEMA public TO acktrail_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE acktrail IN SCHEMA public GRANT SELECT ON TABLES TO acktrail_reader;
