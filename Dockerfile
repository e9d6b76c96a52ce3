# syntax=docker/dockerfile:1
# One build for acktrail's three images, as targets (docker-compose.yml builds each):
#   exporter   the exporter and journey store      node exporter/dist/main.js
#   dashboard  the Next.js dashboard                next start
#   pipeline   the reference pipeline's roles      tsx examples/orders/src/main.ts <role>
# The build steps are the commands the README and CI run: npm ci, then the workspace's build.
# Every image runs as the unprivileged user `node`.

ARG NODE_IMAGE=node:20.19.5-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY instrument/package.json instrument/
COPY examples/orders/package.json examples/orders/
COPY exporter/package.json exporter/
COPY dashboard/package.json dashboard/
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY tsconfig.json ./
COPY instrument instrument
COPY examples/orders examples/orders
COPY exporter exporter
COPY dashboard dashboard
ENV NEXT_TELEMETRY_DISABLED=1
RUN npm run build -w exporter && npm run build -w dashboard

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1
WORKDIR /app
COPY --from=build --chown=node:node /app /app
USER node

FROM runtime AS exporter
EXPOSE 9470
CMD ["node", "--expose-gc", "exporter/dist/main.js"]

FROM runtime AS dashboard
WORKDIR /app/dashboard
EXPOSE 3000
CMD ["node", "../node_modules/next/dist/bin/next", "start", "-p", "3000", "-H", "0.0.0.0"]

FROM runtime AS pipeline
ENV LISTEN_HOST=0.0.0.0
ENTRYPOINT ["node", "--import", "tsx", "examples/orders/src/main.ts"]
CMD ["worker"]
