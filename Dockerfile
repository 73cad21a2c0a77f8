# Sandflow's cluster-mode image, for machines with a container engine:
#   docker build -t sandflow:dev .
# Without an engine, hack/image/build.ts makes the same image layout (app in /app, user 1000,
# NODE_ENV=production) by appending a layer onto node:20-slim with the project's own OCI code.
# One image, two entrypoints: the chart and config/ run embedded/src/cluster/api.ts (the default
# command) and embedded/src/cluster/operator.ts.

# --- build: every dependency, the console's static files, then production dependencies only ---
FROM node:20-slim AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.base.json ./
COPY kube/package.json kube/
COPY images/package.json images/
COPY crds/package.json crds/
COPY embedded/package.json embedded/
COPY operator/package.json operator/
COPY api/package.json api/
COPY console/package.json console/
RUN npm ci --no-audit --no-fund
COPY . .
# Production dependencies of the root and the runtime workspaces only, as hack/image/stage.ts
# installs them: the console's (React, MUI) are built into console/dist and not needed at run time.
RUN npm run build -w console \
  && rm -rf node_modules */node_modules \
  && npm ci --omit=dev --no-audit --no-fund --include-workspace-root \
     --workspace=kube --workspace=images --workspace=crds --workspace=embedded \
     --workspace=operator --workspace=api

# --- runtime: non-root, files owned by root (readable, not writable, by the app) ---------------
FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/package.json /src/package-lock.json /src/tsconfig.base.json ./
COPY --from=build /src/kube kube
COPY --from=build /src/images images
COPY --from=build /src/crds crds
COPY --from=build /src/embedded embedded
COPY --from=build /src/operator operator
COPY --from=build /src/api api
COPY --from=build /src/console/package.json console/
COPY --from=build /src/console/dist console/dist
# The chart mounts an emptyDir on /tmp (tsx's cache, the image pull cache): the root stays read-only.
USER 1000:1000
EXPOSE 8080
CMD ["node", "--import", "tsx", "embedded/src/cluster/api.ts"]
