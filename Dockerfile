# syntax=docker/dockerfile:1
# The whiteboard server, compiled to JavaScript, with the built web app (docs/operations.md).
# Stage 1 builds everything with dev dependencies; stage 2 lays out production dependencies only;
# the final stage is a slim Node LTS with the compiled server, the web build and nothing else:
# no TypeScript runtime, no tests, no bench, no dev dependencies. Runs as the unprivileged `node`.
# The Node LTS line here is the one in .nvmrc, which CI tests on (test/compose.test.ts keeps them
# equal).
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
RUN npm install -g pnpm@12.4.2
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json .npmrc ./
COPY apps/web/package.json apps/web/
COPY apps/server/package.json apps/server/
COPY packages/protocol/package.json packages/protocol/
COPY packages/db/package.json packages/db/
COPY packages/drawing/package.json packages/drawing/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
RUN pnpm install --frozen-lockfile
COPY . .
# The web app (hashed, pre-compressed assets, hidden source maps) and the compiled server.
RUN pnpm build && node scripts/build-server.mjs /src/dist \
 && pnpm --filter @wb/server deploy --prod /prod \
 && cp -r /src/dist /prod/dist && rm -rf /prod/src /prod/test /prod/dist/server/*.map \
 && mkdir -p /prod/web && cp -r apps/web/dist/. /prod/web/ && find /prod/web -name '*.map' -delete

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 PGLITE_DIR=/data/pglite WEB_DIST=/app/web
WORKDIR /app
COPY --from=build --chown=root:root /prod /app
RUN mkdir -p /data && chown node:node /data
# The embedded database (no DATABASE_URL) lives here: keep it on a volume.
VOLUME ["/data"]
USER node
EXPOSE 3000
# Liveness only (the process): the balancer routes on /readyz. The start period covers the first
# start of the embedded database and the migrations.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM drains (docs/operations.md, "Shutdown"): give `docker stop` more than the default 10 s.
STOPSIGNAL SIGTERM
CMD ["node", "dist/server/main.mjs"]
