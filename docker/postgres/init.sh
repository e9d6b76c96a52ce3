#!/usr/bin/env bash
# Runs once, when the compose stack's PostgreSQL volume is new: init.sql, with the passwords of
# the exporter's roles from the environment docker-compose.yml requires (none has a default).
set -euo pipefail
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v store_password="$ACKTRAIL_STORE_PASSWORD" -v reader_password="$ACKTRAIL_READER_PASSWORD" \
  -f /acktrail/init.sql
