# syntax=docker/dockerfile:1
# One build for acktrail's three images, as targets (docker-compose.yml builds each):
#   exporter   the exporter and journey store      node exporter/dist/main.js
#   dashboard  the Next.js dashboard                node dashboard/server.js (standalone output)
#   pipeline   the reference pipeline's roles      tsx examples/orders/src/main.ts <role>
# The build steps are the commands the README and CI run: npm ci, then the workspace's build.
# Each runtime image holds its workspace's production dependencies only (npm ci --omit=dev for
# that workspace, or for the dashboard the files Next's standalone output traced) and what was
# built; every image runs as the unprivileged user `node`.

ARG NODE_IMAGE=node:24.22.3-bookworm-slim

FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
COPY package.json package-lock.json ./
COPY conventions/package.json conventions/
COPY instrument/package.json instrument/
COPY examples/orders/package.json examples/orders/
COPY examples/payments/package.json examples/payments/
COPY exporter/package.json exporter/
COPY dashboard/package.json dashboard/

FROM manifests AS deps
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY tsconfig.json ./
COPY scripts/write-revision.mjs scripts/
COPY conventions conventions
COPY instrument instrument
COPY examples/orders examples/orders
COPY exporter exporter
COPY dashboard dashboard
ENV NEXT_TELEMETRY_DISABLED=1
# acktrail_build_info{revision}: the image has no .git (docker build --build-arg SOURCE_REVISION=…);
# an ARG is in the environment of the RUN below.
ARG SOURCE_REVISION=unknown
RUN npm run build -w exporter && npm run build -w dashboard

# Production dependencies of one workspace each (the root's dev tools and the other workspaces'
# packages stay out).
FROM manifests AS exporter-deps
RUN npm ci --omit=dev --no-audit --no-fund -w exporter --include-workspace-root=false
FROM manifests AS pipeline-deps
RUN npm ci --omit=dev --no-audit --no-fund -w examples/orders --include-workspace-root=false

FROM ${NODE_IMAGE} AS exporter
ENV NODE_ENV=production ACKTRAIL_LISTEN_HOST=0.0.0.0
WORKDIR /app
COPY --from=exporter-deps /app /app
COPY --from=build /app/conventions/dist conventions/dist
COPY --from=build /app/exporter/dist exporter/dist
COPY exporter/migrations exporter/migrations
COPY exporter/acktrail.schema.json exporter/acktrail.schema.json
# The files belong to root, readable by all: the user that runs them cannot rewrite them.
USER node
EXPOSE 9470
# The exporter gives itself its V8 and allocator settings (exporter/src/runtime/flags.ts), as it
# does when started any other way.
CMD ["node", "exporter/dist/main.js"]

FROM ${NODE_IMAGE} AS dashboard
# KEEP_ALIVE_TIMEOUT (ms, read by Next's standalone server): idle connections outlive the 60 s of
# an ingress or load balancer in front, which would otherwise reuse one just closed (a 502).
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOSTNAME=0.0.0.0 KEEP_ALIVE_TIMEOUT=65000
WORKDIR /app
# The standalone server with the node_modules it traces and the static files (the build copies
# them in): no npm install at all.
COPY --from=build /app/dashboard/.next/standalone ./
USER node
EXPOSE 3000
CMD ["node", "dashboard/server.js"]

# The example runs from its TypeScript sources with tsx, a dependency of its own.
FROM ${NODE_IMAGE} AS pipeline
ENV NODE_ENV=production LISTEN_HOST=0.0.0.0
WORKDIR /app
COPY --from=pipeline-deps /app /app
COPY tsconfig.json ./
COPY conventions conventions
COPY instrument instrument
COPY examples/orders examples/orders
USER node
ENTRYPOINT ["node", "--import", "tsx", "examples/orders/src/main.ts"]
CMD ["worker"]
