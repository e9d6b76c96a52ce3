-- Dead letters, trust (docs/dead-letters.md, docs/security.md): the audit log says whether a
-- trusted proxy verified the actor's name or the operator typed it; bulk replays live in the
-- store, so that any replica lists and stops them and a cap holds across replicas.
ALTER TABLE dead_letter_audit ADD COLUMN actor_verified boolean NOT NULL DEFAULT false;

CREATE TABLE dead_letter_jobs (
  id             uuid        PRIMARY KEY,
  actor          text        NOT NULL,
  actor_verified boolean     NOT NULL,
  ids            bigint[]    NOT NULL,
  total          integer     NOT NULL,
  done           integer     NOT NULL DEFAULT 0,
  replayed       integer     NOT NULL DEFAULT 0,
  failed         integer     NOT NULL DEFAULT 0,
  failed_again   integer     NOT NULL DEFAULT 0,
  -- running | done | stopped | interrupted (its replica went away)
  state          text        NOT NULL,
  stop_requested boolean     NOT NULL DEFAULT false,
  stop_reason    text,
  started_at     timestamptz NOT NULL DEFAULT now(),
  finished_at    timestamptz,
  -- The running replica writes its progress at least every few seconds.
  heartbeat_at   timestamptz NOT NULL DEFAULT now(),
  -- The latest results, at most 100.
  results        jsonb       NOT NULL DEFAULT '[]'
);
CREATE INDEX dead_letter_jobs_started ON dead_letter_jobs (started_at);
CREATE INDEX dead_letter_jobs_running ON dead_letter_jobs (heartbeat_at) WHERE state = 'running';
-- Replayed rows whose content is deleted after replay.keepContentHours.
CREATE INDEX dead_letters_replayed_sealed ON dead_letters (state_at)
  WHERE state = 'replayed' AND sealed IS NOT NULL;
